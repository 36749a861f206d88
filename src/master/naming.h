#pragma once
#include <string>

namespace det::master {

// "adjective-noun-noun", for names left out of a config.
std::string GeneratePetName();

// "Experiment (adjective-noun-noun)", upstream's shape for a name left out of a config.
std::string GenerateExperimentName();

}  // namespace det::master
