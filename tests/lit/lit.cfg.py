# lit configuration for gestell's CLI and check tests.
#
# Substitutions every test can use:
#   %gestell   the built gestell command
#   %corpus    tests/corpus (real Triton output)
#   %srcroot   the source tree
#   %bindir    build/bin (gestell and its helper programs)
#   FileCheck  FileCheck-22 (or the FileCheck CMake found)
#   %testplugins  plugins built only for tests (build/lib/gestell/test-plugins)
#   %flatjson  Inputs/flatjson.py: JSON as `path=value` lines for FileCheck
#   %through_fifo F -- CMD  Inputs/through_fifo.py: CMD writes into FIFO F
#   %expect_exit N  Inputs/expect_exit.py: runs the rest of the line and
#              succeeds only when it exits with status N (0, 1 or 2)
#   %check_gestell %s CHECK TARGET PREFIX [-- ARGS]  Inputs/check_gestell.py:
#              one check on one target (relative to the source root), its
#              output checked against this file's PREFIX lines;
#              tools/update_expectations.py rewrites them
#              (tests/lit/checks/*.test)
#   %ptxas     a real ptxas (the PATH lit started with, else
#              /usr/local/cuda/bin), with the feature `ptxas`; tests that
#              need it say `REQUIRES: ptxas` and are skipped without one
# The environment is pinned so results do not depend on the machine:
# XDG_CACHE_HOME points into the build tree (the tool's cache never lands in
# the user's home) and PATH holds only system folders (no nvdisasm from a
# developer's CUDA install).
import os
import shutil
import lit.formats

config.name = "gestell"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gestell_obj_root, "tests", "lit")

config.substitutions.append(("%gestell", os.path.join(config.gestell_tools_dir, "gestell")))
config.substitutions.append(("%corpus", os.path.join(config.gestell_src_root, "tests", "corpus")))
config.substitutions.append(("%srcroot", config.gestell_src_root))
config.substitutions.append(("%bindir", config.gestell_tools_dir))
config.substitutions.append((r"\bFileCheck\b", config.filecheck))
config.substitutions.append(
    ("%testplugins", os.path.join(config.gestell_obj_root, "lib", "gestell", "test-plugins")))
inputs = os.path.join(os.path.dirname(__file__), "Inputs")
config.substitutions.append(("%flatjson", "python3 " + os.path.join(inputs, "flatjson.py")))
config.substitutions.append(("%through_fifo", "python3 " + os.path.join(inputs, "through_fifo.py")))
config.substitutions.append(("%expect_exit", "python3 " + os.path.join(inputs, "expect_exit.py")))
config.substitutions.append(
    ("%check_gestell", "python3 %s --gestell %s --filecheck %s --root %s" % (
        os.path.join(inputs, "check_gestell.py"),
        os.path.join(config.gestell_tools_dir, "gestell"), config.filecheck,
        config.gestell_src_root)))

ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

config.environment["PATH"] = os.pathsep.join(["/usr/bin", "/bin"])
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")
for var in ("VIRTUAL_ENV", "CONDA_PREFIX", "HOME"):
    config.environment.pop(var, None)
config.environment["HOME"] = os.path.join(config.test_exec_root, "home")
