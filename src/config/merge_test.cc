#include "config/merge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::config {
namespace {

using nlohmann::json;

json Merge(const char* obj, const char* src) {
  return MergeExperimentConfig(json::parse(obj), json::parse(src));
}

TEST(MergeTest, ObjUnsetTakesSrcAndSrcUnsetKeepsObj) {
  EXPECT_EQ(Merge("null", R"({"a":1})"), json::parse(R"({"a":1})"));
  EXPECT_EQ(Merge(R"({"a":1})", "null"), json::parse(R"({"a":1})"));
  EXPECT_EQ(Merge(R"({"a":null,"b":2})", R"({"a":1})"), json::parse(R"({"a":1,"b":2})"));
  EXPECT_EQ(Merge(R"({"a":1})", R"({"a":null})"), json::parse(R"({"a":1})"));
}

TEST(MergeTest, ScalarsObjWinsIncludingZeroValues) {
  EXPECT_EQ(Merge(R"({"max_restarts":0,"description":"","debug":false})",
                  R"({"max_restarts":5,"description":"t","debug":true,"name":"tpl"})"),
            json::parse(R"({"max_restarts":0,"description":"","debug":false,"name":"tpl"})"));
}

TEST(MergeTest, DifferentKindsObjWins) {
  EXPECT_EQ(Merge(R"({"data":"x"})", R"({"data":{"a":1}})"), json::parse(R"({"data":"x"})"));
  EXPECT_EQ(Merge(R"({"data":{"a":1}})", R"({"data":[1]})"), json::parse(R"({"data":{"a":1}})"));
}

TEST(MergeTest, MapsDeepMerge) {
  EXPECT_EQ(
      Merge(R"({"data":{"a":{"x":1},"b":2},"resources":{"slots_per_trial":2}})",
            R"({"data":{"a":{"x":9,"y":3},"c":4},"resources":{"slots_per_trial":8,"weight":2}})"),
      json::parse(R"({"data":{"a":{"x":1,"y":3},"b":2,"c":4},
                            "resources":{"slots_per_trial":2,"weight":2}})"));
}

TEST(MergeTest, OrdinaryListsObjWinsEntirely) {
  EXPECT_EQ(Merge(R"({"labels":["a"],"entrypoint":["python3","x.py"]})",
                  R"({"labels":["b","c"],"entrypoint":["sh"]})"),
            json::parse(R"({"labels":["a"],"entrypoint":["python3","x.py"]})"));
  // An explicitly empty list is set: it wins.
  EXPECT_EQ(Merge(R"({"labels":[]})", R"({"labels":["b"]})"), json::parse(R"({"labels":[]})"));
  // Lists nested in maps too.
  EXPECT_EQ(Merge(R"({"data":{"l":[1]}})", R"({"data":{"l":[2,3]}})"),
            json::parse(R"({"data":{"l":[1]}})"));
}

TEST(MergeTest, BindMountsByContainerPath) {
  json out = Merge(R"({"bind_mounts":[{"host_path":"/u1","container_path":"/a"},
                                      {"host_path":"/u2","container_path":"/b"}]})",
                   R"({"bind_mounts":[{"host_path":"/t1","container_path":"/b"},
                                      {"host_path":"/t2","container_path":"/c","read_only":true}]})");
  EXPECT_EQ(out["bind_mounts"], json::parse(R"([{"host_path":"/u1","container_path":"/a"},
                                                 {"host_path":"/u2","container_path":"/b"},
                                                 {"host_path":"/t2","container_path":"/c","read_only":true}])"));
  // No dedup within one side.
  out = Merge(
      R"({"bind_mounts":[{"host_path":"/1","container_path":"/a"},{"host_path":"/2","container_path":"/a"}]})",
      R"({"bind_mounts":[]})");
  EXPECT_EQ(out["bind_mounts"].size(), 2u);
  // Only the template has them.
  out = Merge(R"({})", R"({"bind_mounts":[{"host_path":"/t","container_path":"/c"}]})");
  EXPECT_EQ(out["bind_mounts"].size(), 1u);
}

TEST(MergeTest, DevicesByContainerPathIncludingStringForm) {
  json out = Merge(
      R"({"resources":{"devices":["/dev/x:/dev/a:rw",{"host_path":"/dev/y","container_path":"/dev/b"}]}})",
      R"({"resources":{"devices":["/dev/a","/dev/q:/dev/b","/dev/z:/dev/c:r"]}})");
  EXPECT_EQ(
      out["resources"]["devices"],
      json::parse(
          R"(["/dev/x:/dev/a:rw",{"host_path":"/dev/y","container_path":"/dev/b"},"/dev/z:/dev/c:r"])"));
}

TEST(MergeTest, ProxyPortsByProxyPort) {
  json out = Merge(R"({"environment":{"proxy_ports":[{"proxy_port":8000,"proxy_tcp":true}]}})",
                   R"({"environment":{"proxy_ports":[{"proxy_port":8000},{"proxy_port":9000}]}})");
  EXPECT_EQ(out["environment"]["proxy_ports"],
            json::parse(R"([{"proxy_port":8000,"proxy_tcp":true},{"proxy_port":9000}])"));
}

TEST(MergeTest, EnvironmentVariablesListsConcatenateSrcFirst) {
  json out = Merge(R"({"environment":{"environment_variables":["A=user","B=2"]}})",
                   R"({"environment":{"environment_variables":["A=tpl","C=3"]}})");
  EXPECT_EQ(out["environment"]["environment_variables"],
            json::parse(R"(["A=tpl","C=3","A=user","B=2"])"));
}

TEST(MergeTest, EnvironmentVariablesMapsConcatenatePerDevice) {
  json out = Merge(R"({"environment":{"environment_variables":{"cpu":["A=u"],"cuda":["B=u"]}}})",
                   R"({"environment":{"environment_variables":{"cpu":["A=t"],"rocm":["R=t"]}}})");
  EXPECT_EQ(out["environment"]["environment_variables"],
            json::parse(R"({"cpu":["A=t","A=u"],"cuda":["B=u"],"rocm":["R=t"]})"));
}

TEST(MergeTest, EnvironmentVariablesMixedFormsBecomeAMap) {
  // A plain list stands for the same list on cpu, cuda and rocm.
  json out = Merge(R"({"environment":{"environment_variables":["U=1"]}})",
                   R"({"environment":{"environment_variables":{"cuda":["T=1"]}}})");
  EXPECT_EQ(out["environment"]["environment_variables"],
            json::parse(R"({"cpu":["U=1"],"cuda":["T=1","U=1"],"rocm":["U=1"]})"));
  out = Merge(R"({"environment":{"environment_variables":{"cpu":["U=1"]}}})",
              R"({"environment":{"environment_variables":["T=1"]}})");
  EXPECT_EQ(out["environment"]["environment_variables"],
            json::parse(R"({"cpu":["T=1","U=1"],"cuda":["T=1"],"rocm":["T=1"]})"));
}

TEST(MergeTest, LogPoliciesByNameAndLegacyByActionPattern) {
  json out = Merge(
      R"({"log_policies":[{"name":"oom","pattern":"user-oom","action":"cancel_retries"},
                          {"pattern":"p1","action":{"type":"exclude_node"}}]})",
      R"({"log_policies":[{"name":"oom","pattern":"tpl-oom","action":"exclude_node"},
                          {"name":"ecc","pattern":"ecc","action":"exclude_node"},
                          {"pattern":"p1","action":{"type":"exclude_node"}},
                          {"pattern":"p1","action":{"type":"cancel_retries"}}]})");
  EXPECT_EQ(out["log_policies"],
            json::parse(R"([{"name":"oom","pattern":"user-oom","action":"cancel_retries"},
                            {"pattern":"p1","action":{"type":"exclude_node"}},
                            {"name":"ecc","pattern":"ecc","action":"exclude_node"},
                            {"pattern":"p1","action":{"type":"cancel_retries"}}])"));
}

TEST(MergeTest, SearcherSameVariantMergesRecursively) {
  json out = Merge(R"({"searcher":{"name":"random","metric":"loss","max_trials":4}})",
                   R"({"searcher":{"name":"random","max_trials":10,"max_concurrent_trials":2,
                                   "smaller_is_better":false}})");
  EXPECT_EQ(out["searcher"], json::parse(R"({"name":"random","metric":"loss","max_trials":4,
                                             "max_concurrent_trials":2,"smaller_is_better":false})"));
}

TEST(MergeTest, SearcherDifferentVariantKeepsOnlyCommonFieldsOfSrc) {
  json out = Merge(
      R"({"searcher":{"name":"single","metric":"loss"}})",
      R"({"searcher":{"name":"random","metric":"acc","smaller_is_better":false,"max_trials":10}})");
  EXPECT_EQ(out["searcher"],
            json::parse(R"({"name":"single","metric":"loss","smaller_is_better":false})"));
}

TEST(MergeTest, SearcherObjWithoutVariantTakesSrcVariant) {
  json out = Merge(R"({"searcher":{"metric":"loss"}})",
                   R"({"searcher":{"name":"random","metric":"acc","max_trials":10}})");
  EXPECT_EQ(out["searcher"], json::parse(R"({"name":"random","metric":"loss","max_trials":10})"));
  out = Merge(R"({})", R"({"searcher":{"name":"single","metric":"acc"}})");
  EXPECT_EQ(out["searcher"], json::parse(R"({"name":"single","metric":"acc"})"));
}

TEST(MergeTest, CheckpointStorageUnionByType) {
  json same =
      Merge(R"({"checkpoint_storage":{"type":"shared_fs","host_path":"/u"}})",
            R"({"checkpoint_storage":{"type":"shared_fs","host_path":"/t","storage_path":"s",
                                              "save_trial_best":3}})");
  EXPECT_EQ(same["checkpoint_storage"],
            json::parse(R"({"type":"shared_fs","host_path":"/u","storage_path":"s",
                                                        "save_trial_best":3})"));
  json other = Merge(
      R"({"checkpoint_storage":{"type":"directory","container_path":"/c"}})",
      R"({"checkpoint_storage":{"type":"shared_fs","host_path":"/t","save_trial_latest":2}})");
  EXPECT_EQ(other["checkpoint_storage"],
            json::parse(R"({"type":"directory","container_path":"/c","save_trial_latest":2})"));
  json common_only =
      Merge(R"({"checkpoint_storage":{"save_trial_best":0}})",
            R"({"checkpoint_storage":{"type":"shared_fs","host_path":"/t","save_trial_best":4}})");
  EXPECT_EQ(common_only["checkpoint_storage"],
            json::parse(R"({"type":"shared_fs","host_path":"/t","save_trial_best":0})"));
}

TEST(MergeTest, HyperparameterObjWinsWholesale) {
  json out = Merge(R"({"hyperparameters":{"lr":{"type":"double","minval":0.1,"maxval":1},"b":32}})",
                   R"({"hyperparameters":{"lr":{"type":"double","minval":0.01,"maxval":5,"count":3},
                                          "b":{"type":"const","val":64},"extra":7}})");
  EXPECT_EQ(out["hyperparameters"],
            json::parse(R"({"lr":{"type":"double","minval":0.1,"maxval":1},"b":32,"extra":7})"));
}

TEST(MergeTest, NestedHyperparametersMergePerKey) {
  json out = Merge(
      R"({"hyperparameters":{"opt":{"lr":0.1,"inner":{"m":{"type":"const","val":1}}}}})",
      R"({"hyperparameters":{"opt":{"lr":0.5,"wd":0.01,"inner":{"m":{"type":"const","val":2},"n":3}}}})");
  EXPECT_EQ(
      out["hyperparameters"],
      json::parse(R"({"opt":{"lr":0.1,"wd":0.01,"inner":{"m":{"type":"const","val":1},"n":3}}})"));
  // Nested on one side only: obj wins wholesale.
  out = Merge(R"({"hyperparameters":{"opt":{"type":"const","val":1}}})",
              R"({"hyperparameters":{"opt":{"lr":0.5}}})");
  EXPECT_EQ(out["hyperparameters"], json::parse(R"({"opt":{"type":"const","val":1}})"));
}

TEST(MergeTest, ImageStringAgainstMap) {
  json out =
      Merge(R"({"environment":{"image":{"cpu":"u-cpu"}}})", R"({"environment":{"image":"t"}})");
  EXPECT_EQ(out["environment"]["image"], json::parse(R"({"cpu":"u-cpu","cuda":"t","rocm":"t"})"));
  out = Merge(R"({"environment":{"image":"u"}})", R"({"environment":{"image":{"cpu":"t"}}})");
  EXPECT_EQ(out["environment"]["image"], "u");
}

TEST(MergeTest, SpecialListRulesApplyOnlyAtTheirPaths) {
  // A `bind_mounts` key inside data is an ordinary list.
  json out = Merge(R"({"data":{"bind_mounts":[{"container_path":"/a"}]}})",
                   R"({"data":{"bind_mounts":[{"container_path":"/b"}]}})");
  EXPECT_EQ(out["data"]["bind_mounts"].size(), 1u);
}

TEST(MergeTest, InputsAreNotModified) {
  json obj = json::parse(R"({"bind_mounts":[{"container_path":"/a"}]})");
  json src = json::parse(R"({"bind_mounts":[{"container_path":"/b"}],"name":"t"})");
  json obj_copy = obj, src_copy = src;
  (void)MergeExperimentConfig(obj, src);
  EXPECT_EQ(obj, obj_copy);
  EXPECT_EQ(src, src_copy);
}

}  // namespace
}  // namespace det::config
