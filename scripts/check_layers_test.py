#!/usr/bin/python3
"""Unit tests of check_layers.py on small trees of its own (CTest: check_layers_test)."""
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_layers  # noqa: E402


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = Path(self.tmp.name) / "src"
        for layer in check_layers.LAYERS:
            for module in layer:
                (self.src / module).mkdir(parents=True)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = self.src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def run_check(self, *modules):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = check_layers.main(["--src", str(self.src), *modules])
        return rc, err.getvalue()

    def test_includes_that_go_down_pass(self):
        self.write("api/wire.h", '#include "common/time_util.h"\n#include "config/merge.h"\n')
        self.write("master/db/store.cc", '#include "master/x.h"\n#include "storage/s.h"\n#include <vector>\n')
        self.write("cli/ops_test.cc", '#include "cli/fake.h"\n#include "common/test_temp_dir.h"\n')
        self.assertEqual(self.run_check(), (0, ""))

    def test_an_upward_include_fails_with_its_file_line_and_layers(self):
        self.write("config/master_config.h", '#pragma once\n#include "api/agent_protocol.h"\n')
        rc, err = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("config/master_config.h:2: error: module config includes "
                      '"api/agent_protocol.h", but api (layer 3) is above config (layer 2); '
                      "config may include only: common", err)

    def test_a_peer_include_fails_in_tests_too(self):
        self.write("cli/tunnel_test.cc", '#  include <master/http/server.h>\n')
        self.write("searcher/a.cc", '#include "scheduler/fitting.h"\n')
        rc, err = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("cli/tunnel_test.cc:1: error", err)
        self.assertIn("master (layer 7) is a peer of cli (layer 7)", err)
        self.assertIn("searcher/a.cc:1: error", err)

    def test_only_the_named_modules_are_checked(self):
        self.write("config/a.h", '#include "api/b.h"\n')
        self.assertEqual(self.run_check("common", "api")[0], 0)
        self.assertEqual(self.run_check("config")[0], 1)

    def test_a_relative_include_out_of_the_module_fails(self):
        self.write("common/a.cc", '#include "../master/b.h"\n')
        rc, err = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("by a relative path", err)

    def test_a_folder_in_no_layer_is_an_error(self):
        (self.src / "newmod").mkdir()
        rc, err = self.run_check()
        self.assertEqual(rc, 2)
        self.assertIn("module newmod is in no layer", err)

    def test_the_stamp_is_written_only_when_the_check_passes(self):
        stamp = Path(self.tmp.name) / "stamp"
        self.write("config/a.h", '#include "api/b.h"\n')
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(check_layers.main(["--src", str(self.src), "--stamp", str(stamp)]), 1)
        self.assertFalse(stamp.exists())
        (self.src / "config/a.h").write_text('#include "common/b.h"\n')
        self.assertEqual(check_layers.main(["--src", str(self.src), "--stamp", str(stamp)]), 0)
        self.assertTrue(stamp.exists())

    def test_a_link_to_a_peer_or_a_higher_module_fails(self):
        links = Path(self.tmp.name) / "links.txt"
        links.write_text("config det_config common det_common\n"
                         "cli cli_test master det_master_lib\n"
                         "config det_config api det_api\n"
                         "master master_test master det_master_db\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = check_layers.main(["--src", str(self.src), "--links", str(links)])
        self.assertEqual(rc, 1)
        self.assertEqual(err.getvalue().count("error"), 2)
        self.assertIn("src/cli/CMakeLists.txt: error: target cli_test of module cli links "
                      "det_master_lib, but master is a peer of cli", err.getvalue())
        self.assertIn("target det_config of module config links det_api, but api is above config",
                      err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(check_layers.main(["--src", str(self.src), "--links", str(links),
                                                "common", "master"]), 0)


if __name__ == "__main__":
    unittest.main()
