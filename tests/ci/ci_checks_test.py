#!/usr/bin/python3
"""Tests of .ci/check_deps and .ci/check_sources on fixture trees built in a temporary folder, and on the
repository itself (T3SIM_SOURCE_DIR)."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = pathlib.Path(os.environ.get("T3SIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))

GRAPH = """# fixture

```deps
sim ->
models/common -> sim
models/gpu -> models/common
tools -> models/gpu
```
"""


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def run(script, root):
    return subprocess.run(["/usr/bin/python3", str(SOURCE_DIR / ".ci" / script), str(root)],
                          capture_output=True, text=True, check=False)


class CheckersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def layered_tree(self):
        write(self.root, "docs/architecture.md", GRAPH)
        write(self.root, "sim/units.h", "#pragma once\n#include <cstdint>\n")
        write(self.root, "models/common/ids.h", '#include "sim/units.h"\n')
        write(self.root, "models/gpu/gpu.h", '#include "models/common/ids.h"\n#include "gpu_detail.h"\n')
        write(self.root, "models/gpu/gpu_detail.h", "#pragma once\n")
        # Transitive: tools reaches sim through gpu -> common -> sim.
        write(self.root, "tools/main.cpp", '#include "sim/units.h"\n#include "models/gpu/gpu.h"\n')
        write(self.root, "tests/anything_test.cpp", '#include "tools/main.cpp"\n')

    def test_deps_fixture_pass(self):
        self.layered_tree()
        result = run("check_deps", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("5 includes checked, 0 errors", result.stdout)

    def test_deps_fixture_fail(self):
        self.layered_tree()
        write(self.root, "sim/engine.cpp", '#include "sim/units.h"\n\n#include "models/gpu/gpu.h"\n')
        write(self.root, "models/common/up.h", '#include "tools/main.cpp"\n')
        write(self.root, "stray/x.h", "")  # not scanned: outside sim/ models/ tools/ validation/
        write(self.root, "validation/orphan.cpp", "int x;\n")
        result = run("check_deps", self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn('sim/engine.cpp:3: #include "models/gpu/gpu.h" goes sim -> models/gpu', result.stderr)
        self.assertIn("models/common/up.h:1:", result.stderr)
        self.assertIn("validation/orphan.cpp: belongs to no node", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 3, result.stderr)

    def test_deps_fixture_cycle_and_unknown_node(self):
        write(self.root, "docs/architecture.md",
              "```deps\nsim -> models/common\nmodels/common -> sim models/nope\n```\n")
        write(self.root, "sim/a.h", "")
        result = run("check_deps", self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("'models/nope' is not a node", result.stderr)
        self.assertIn("cycle: ", result.stderr)

    def test_deps_graph_lives_in_docs_architecture(self):
        # The graph is read from docs/architecture.md only: a README.md with a deps block is not enough.
        write(self.root, "README.md", GRAPH)
        write(self.root, "sim/units.h", "#pragma once\n")
        result = run("check_deps", self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("docs/architecture.md", result.stdout + result.stderr)

    def test_deps_repository(self):
        result = run("check_deps", SOURCE_DIR)
        self.assertEqual(result.returncode, 0, result.stderr)

    def reference_tree(self):
        write(self.root, "validation/reference/hardware.md",
              "# H\n\n## 1. GPUs\n\n## 5. NCCL\n\n### 5.4 Cost model\n")
        write(self.root, "validation/reference/measurements.md",
              "# M\n\n## 3. GEMM\n\n### (N) XLA table\n\n## 7. Limits\n\n| 7.7 | row |\n\n## Appendix A. X\n")

    def test_sources_fixture_pass(self):
        self.reference_tree()
        write(self.root, "configs/a.json", """{"x": 1, "source": {"x":
            "validation/reference/hardware.md §5.4, §1 and validation/reference/measurements.md §3(N), §7.7",
            "y": "`validation/reference/measurements.md` Appendix A; NVIDIA/nccl:docs/README.md"}}""")
        result = run("check_sources", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("3 citations, 0 unresolved", result.stdout)

    def test_sources_fixture_fail(self):
        self.reference_tree()
        write(self.root, "configs/b.json", """{"source": {"a": "hardware.md §5.4",
            "b": "validation/reference/hardware.md §5.9", "c": "validation/reference/gone.md §1",
            "d": "validation/reference/measurements.md §3(Q)", "e": "validation/reference/hardware.md §1-§6"}}""")
        result = run("check_sources", self.root)
        self.assertEqual(result.returncode, 1)
        for pointer, text in [("/source/a", "without its folder"), ("/source/b", "§5.9, which has no such"),
                              ("/source/c", "does not exist"), ("/source/d", "§3(Q), which has no such"),
                              ("/source/e", "§6, which has no such")]:
            self.assertIn(f"configs/b.json: {pointer}: ", result.stderr)
            self.assertIn(text, result.stderr)

    def test_sources_repository(self):
        result = run("check_sources", SOURCE_DIR)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv)
