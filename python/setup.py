"""Builds the synthaudit Python package: the extension module is the CMake target
synthaudit_python of the repository (cmake/python.cmake), linked to the same core library as the
command line, so `pip install ./python` builds nothing twice and needs no network.

The CMake build folder is the repository's build/ (the one `make build` uses) unless
SYNTHAUDIT_BUILD_DIR names another; an up-to-date build is reused as it is.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def project_version():
    """The version of the CMake project, so it is written once."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(synthaudit VERSION ([0-9.]+)", text).group(1)


def cached_python(build_dir):
    """The interpreter a configured build folder compiles the module for, or None."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        return None
    match = re.search(r"^Python_EXECUTABLE:[A-Z]+=(.*)$", cache.read_text(encoding="utf-8"),
                      re.MULTILINE)
    return match.group(1) if match else None


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "CMakeLists.txt").exists():
            raise RuntimeError(f"{ROOT} is not the synthaudit repository: install from its python/ "
                               "folder (pip 21.3 or later builds a local folder in place)")
        build_dir = Path(os.environ.get("SYNTHAUDIT_BUILD_DIR", ROOT / "build")).resolve()
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir)]
        if not (build_dir / "CMakeCache.txt").exists():
            configure.append("-DCMAKE_BUILD_TYPE=Release")
        # Compile for the interpreter running this install (a venv's python is a link to it).
        cached = cached_python(build_dir)
        if cached is None or os.path.realpath(cached) != os.path.realpath(sys.executable):
            configure.append(f"-DPython_EXECUTABLE={os.path.realpath(sys.executable)}")
        subprocess.check_call(configure)
        jobs = os.environ.get("SYNTHAUDIT_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "synthaudit_python",
                               "-j", jobs])
        built = sorted((build_dir / "python" / "synthaudit").glob("_synthaudit*.so"),
                       key=lambda p: p.stat().st_mtime)
        if not built:
            raise RuntimeError(f"the CMake build left no extension module in {build_dir}/python")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(
    name="synthaudit",
    version=project_version(),
    description="Audit synthetic data against the confidential data it was made from",
    packages=["synthaudit"],
    ext_modules=[Extension("synthaudit._synthaudit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy", "pandas"],
    zip_safe=False,
)
