# The Python module (src/python) is optional: built when pybind11 (Debian pybind11-dev) and the headers
# of the Python it targets are found. It links the static module libraries into a shared object, so they
# are then compiled as position-independent code. The Python is Debian's /usr/bin/python3 (the one with
# torch and onnx) unless -DPython_EXECUTABLE=... names another.
include(GNUInstallDirs)
set(PERFPRED_HAVE_PYTHON OFF)
if(PERFPRED_WITH_PYTHON)
  if(NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python the perfpred module is built for")
  endif()
  set(PYBIND11_FINDPYTHON ON)
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(PERFPRED_HAVE_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "perfpred: Python module for ${Python_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
  else()
    message(STATUS "perfpred: pybind11 or Python headers not found: no Python module (scripts/setup.sh installs them)")
  endif()
endif()
