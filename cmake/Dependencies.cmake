# Vendor libraries, each imported once here and linked by exactly one module.

# ONNX: find_package(Protobuf) must precede find_package(ONNX CONFIG); the onnx target carries
# ONNX_ML=1 and ONNX_NAMESPACE=onnx, which the headers need.
find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG QUIET)
if(NOT TARGET onnx)
  find_path(ONNX_INCLUDE_DIR onnx/onnx_pb.h REQUIRED)
  find_library(ONNX_LIB onnx REQUIRED)
  find_library(ONNX_PROTO_LIB onnx_proto REQUIRED)
  add_library(onnx INTERFACE IMPORTED)
  target_include_directories(onnx INTERFACE ${ONNX_INCLUDE_DIR})
  target_link_libraries(onnx INTERFACE ${ONNX_LIB} ${ONNX_PROTO_LIB} protobuf::libprotobuf)
  target_compile_definitions(onnx INTERFACE ONNX_ML=1 ONNX_NAMESPACE=onnx)
endif()

# XGBoost: Debian's CMake config is broken, so import the library by hand.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
find_library(XGBOOST_LIBRARY xgboost REQUIRED)
add_library(perfpred_xgboost INTERFACE)
target_include_directories(perfpred_xgboost SYSTEM INTERFACE ${XGBOOST_INCLUDE_DIR})
# Not linked: src/learn/xgb.cpp dlopens it on first use, so commands without a learned model do not pay
# for relocating it (with libdmlc and libgomp) at start-up. PERFPRED_XGBOOST_LIBRARY overrides at run time.
get_filename_component(XGBOOST_LIBRARY_REAL "${XGBOOST_LIBRARY}" REALPATH)
target_link_libraries(perfpred_xgboost INTERFACE ${CMAKE_DL_LIBS})
target_compile_definitions(perfpred_xgboost INTERFACE PERFPRED_XGBOOST_LIBRARY="${XGBOOST_LIBRARY_REAL}")

# CLI11 is header-only and slow to compile: only src/cli/main.cpp includes it.
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
