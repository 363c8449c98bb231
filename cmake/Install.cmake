# `cmake --install build [--prefix DIR]`: the binary in bin/, the GPU catalog and shipped models in
# share/perfpred/ (where src/util/paths.cpp looks, next to bin/), and the Python package (src/python).
include(GNUInstallDirs)
install(TARGETS perfpred RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET perfpred_cuda_backend)
  install(TARGETS perfpred_cuda_backend LIBRARY DESTINATION ${CMAKE_INSTALL_BINDIR})  # loaded from next to the binary
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/perfpred/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/perfpred/models)
