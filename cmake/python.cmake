# The Python package's extension module (python/, `synthaudit._synthaudit`): pybind11 bindings
# linked to synthaudit_lib, so the package runs the very library the command line does. setup.py
# (`pip install ./python`) drives this build; `make build` builds it too when pybind11 and
# Python's headers are there (scripts/install-deps installs them), and ctest runs its pytest suite.
option(SYNTHAUDIT_PYTHON "Build the Python package's extension module when pybind11 is found" ON)
if(NOT SYNTHAUDIT_PYTHON)
  return()
endif()
# An AddressSanitizer-instrumented module cannot load into Debian's uninstrumented interpreter
# (the ASan runtime must come first in the process). The library paths the module calls are
# checked under the sanitizers by the unit tests (tests/unit/library_test.cpp).
if(SYNTHAUDIT_SANITIZE)
  message(STATUS "synthaudit: Python package not built with SYNTHAUDIT_SANITIZE")
  return()
endif()

# Debian's pybind11, numpy and pandas are installed for the system interpreter; a pyenv or conda
# python3 that comes first on PATH has none of them. -DPython_EXECUTABLE=... chooses another.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter of the package")
endif()
find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG QUIET)
if(NOT Python_FOUND OR NOT pybind11_FOUND)
  message(STATUS "synthaudit: Python package not built (needs pybind11-dev and python3-dev: "
                 "scripts/install-deps installs them)")
  return()
endif()

set(SYNTHAUDIT_PYTHON_DIR ${PROJECT_BINARY_DIR}/python)
# NO_EXTRAS: no link-time optimisation or stripping of the module; it is a thin layer over the
# library, which is built like every other target.
pybind11_add_module(synthaudit_python MODULE NO_EXTRAS ${PROJECT_SOURCE_DIR}/python/src/module.cpp)
target_link_libraries(synthaudit_python PRIVATE synthaudit_lib)
# The library's own symbols stay inside the module (it links the static library whole).
target_link_options(synthaudit_python PRIVATE -Wl,--exclude-libs,ALL)
set_target_properties(synthaudit_python PROPERTIES
  OUTPUT_NAME _synthaudit
  LIBRARY_OUTPUT_DIRECTORY ${SYNTHAUDIT_PYTHON_DIR}/synthaudit)

# The importable package in the build tree (build/python/synthaudit): the Python sources beside
# the module, copied on every build so the tests see the current ones.
file(GLOB SYNTHAUDIT_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/synthaudit/*.py)
add_custom_target(synthaudit_python_sources ALL
  COMMAND ${CMAKE_COMMAND} -E make_directory ${SYNTHAUDIT_PYTHON_DIR}/synthaudit
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${SYNTHAUDIT_PYTHON_SOURCES}
          ${SYNTHAUDIT_PYTHON_DIR}/synthaudit/
  COMMENT "Python package sources into ${SYNTHAUDIT_PYTHON_DIR}/synthaudit")
add_dependencies(synthaudit_python synthaudit_python_sources)
set(SYNTHAUDIT_PYTHON_BUILT ON)
