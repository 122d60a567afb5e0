# Lit configuration of irax's IR tests: .mlir files run through irax-opt, .py files run
# with the project's Python; both checked with filecheck.
import os
import sys

import lit.formats

config.name = "irax"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Output", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

python = sys.executable
bindir = os.path.dirname(python)
config.substitutions.append(("%python", python))
config.substitutions.append(("irax-opt", f"{python} -m irax.cli.opt"))
config.environment["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
for var in ("HOME", "XDG_CACHE_HOME", "IRAX_COMPILATION_CACHE_DIR", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
