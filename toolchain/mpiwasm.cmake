# CMake toolchain file: build MPI programs to wasm32-wasi for mpiwasm.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<dir>/mpiwasm.cmake [-DMPIWASM_BIN_DIR=...] ..
#
# It uses mpiwasm-cc / mpiwasm-c++ as the C and C++ compilers, so every
# target already sees mpi.h and links against the MPI imports; with
# find_package(MPI), FindMPI sees that the compiler needs no extra flags and
# MPI::MPI_C / MPI::MPI_CXX are empty interface targets.  Executables get
# the .wasm suffix; `ctest` runs them through mpirun + mpiwasm
# (CMAKE_CROSSCOMPILING_EMULATOR and MPIEXEC_EXECUTABLE).

# Where mpiwasm-cc lives: this file sits in <B>/share/mpiwasm (build dir),
# <PREFIX>/share/mpiwasm (installed) or toolchain/ (source tree).
if(NOT MPIWASM_BIN_DIR)
  foreach(_d "${CMAKE_CURRENT_LIST_DIR}/../.." "${CMAKE_CURRENT_LIST_DIR}/../../bin"
             "${CMAKE_CURRENT_LIST_DIR}/../build")
    if(EXISTS "${_d}/mpiwasm-cc")
      get_filename_component(MPIWASM_BIN_DIR "${_d}" ABSOLUTE)
      break()
    endif()
  endforeach()
endif()
if(NOT MPIWASM_BIN_DIR OR NOT EXISTS "${MPIWASM_BIN_DIR}/mpiwasm-cc")
  message(FATAL_ERROR "mpiwasm.cmake: mpiwasm-cc not found near "
    "${CMAKE_CURRENT_LIST_DIR}; run `make toolchain` or set -DMPIWASM_BIN_DIR=")
endif()
set(MPIWASM_BIN_DIR "${MPIWASM_BIN_DIR}" CACHE PATH "directory of mpiwasm-cc")

set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_VERSION 1)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
# Platform/WASI.cmake: CMake 3.25 does not know the WASI platform.
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")

set(CMAKE_C_COMPILER "${MPIWASM_BIN_DIR}/mpiwasm-cc")
set(CMAKE_CXX_COMPILER "${MPIWASM_BIN_DIR}/mpiwasm-c++")
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_CXX_COMPILER_TARGET wasm32-wasi)
# Archiver and ranlib that understand wasm objects.
find_program(CMAKE_AR NAMES llvm-ar-19 llvm-ar REQUIRED)
find_program(CMAKE_RANLIB NAMES llvm-ranlib-19 llvm-ranlib REQUIRED)

# Libraries and headers come from the wasm sysroot only, programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/lib/wasm32-wasi /usr/include/wasm32-wasi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# try_compile links a whole program: a static library test would skip the
# link check that proves the MPI imports resolve.
set(CMAKE_TRY_COMPILE_TARGET_TYPE EXECUTABLE)

# Running wasm programs (try_run, ctest): through the mpiwasm engine.
if(EXISTS "${MPIWASM_BIN_DIR}/mpiwasm")
  set(CMAKE_CROSSCOMPILING_EMULATOR "${MPIWASM_BIN_DIR}/mpiwasm")
else()
  message(WARNING "mpiwasm.cmake: no engine ${MPIWASM_BIN_DIR}/mpiwasm beside "
    "the drivers: programs build, but try_run and ctest cannot run them "
    "(make, or make install, puts it there)")
endif()
# FindMPI: the compiler is the MPI wrapper; mpiexec starts mpiwasm ranks.
set(MPI_C_COMPILER "${CMAKE_C_COMPILER}" CACHE FILEPATH "")
set(MPI_CXX_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "")
set(MPI_ASSUME_NO_BUILTIN_MPI FALSE CACHE BOOL "")
# The launcher must be the one of the MPI the engine is built for: Open
# MPI's mpirun starting an MPICH-built engine runs N independent one-rank
# jobs (and the reverse).  engine-mpi.txt, written by `make toolchain`
# beside the drivers' data, says which; plain mpirun/mpiexec is taken only
# when its --version names that MPI.
set(MPIWASM_ENGINE_MPI "")
foreach(_f "${MPIWASM_BIN_DIR}/share/mpiwasm/engine-mpi.txt"
           "${MPIWASM_BIN_DIR}/../share/mpiwasm/engine-mpi.txt")
  if(NOT MPIWASM_ENGINE_MPI AND EXISTS "${_f}")
    file(STRINGS "${_f}" MPIWASM_ENGINE_MPI LIMIT_COUNT 1)
  endif()
endforeach()
if(MPIWASM_ENGINE_MPI STREQUAL "openmpi")
  set(_mpiwasm_launchers mpirun.openmpi mpiexec.openmpi)
  set(_mpiwasm_banner "Open MPI|OpenRTE")
elseif(MPIWASM_ENGINE_MPI STREQUAL "mpich")
  set(_mpiwasm_launchers mpiexec.mpich mpirun.mpich mpiexec.hydra)
  set(_mpiwasm_banner "HYDRA|MPICH")
else()
  message(FATAL_ERROR "mpiwasm.cmake: cannot tell which MPI the engine in "
    "${MPIWASM_BIN_DIR} is built for (share/mpiwasm/engine-mpi.txt is missing "
    "or says '${MPIWASM_ENGINE_MPI}'); run `make toolchain`")
endif()
if(NOT MPIEXEC_EXECUTABLE)
  find_program(_mpiwasm_launcher NAMES ${_mpiwasm_launchers} NO_CACHE)
  if(NOT _mpiwasm_launcher)
    foreach(_n mpiexec mpirun)
      find_program(_mpiwasm_generic NAMES ${_n} NO_CACHE)
      if(_mpiwasm_generic AND NOT _mpiwasm_launcher)
        execute_process(COMMAND "${_mpiwasm_generic}" --version
          OUTPUT_VARIABLE _v ERROR_VARIABLE _v TIMEOUT 20)
        if(_v MATCHES "${_mpiwasm_banner}")
          set(_mpiwasm_launcher "${_mpiwasm_generic}")
        endif()
      endif()
      unset(_mpiwasm_generic)
    endforeach()
  endif()
  if(_mpiwasm_launcher)
    set(MPIEXEC_EXECUTABLE "${_mpiwasm_launcher}" CACHE FILEPATH
      "launcher of ${MPIWASM_ENGINE_MPI}, the MPI mpiwasm is built for")
  else()
    message(WARNING "mpiwasm.cmake: no ${MPIWASM_ENGINE_MPI} launcher found "
      "(${_mpiwasm_launchers}); set -DMPIEXEC_EXECUTABLE= to run tests")
  endif()
endif()
set(MPIEXEC_PREFLAGS "" CACHE STRING "")
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set(MPIEXEC_PREFLAGS "${CMAKE_CROSSCOMPILING_EMULATOR}" CACHE STRING "" FORCE)
endif()
