# The HTML report inlines vega, vega-lite and vega-embed (installed from the npm registry with
# `npm ci` from report/package-lock.json) and the report's own script and style sheet. They are
# compiled into the binary as byte arrays, so a report works offline and the binary needs no
# files beside it.
set(SYNTHAUDIT_REPORT_DIR ${PROJECT_SOURCE_DIR}/report)
set(SYNTHAUDIT_NPM_BUNDLES
  ${SYNTHAUDIT_REPORT_DIR}/node_modules/vega/build/vega.min.js
  ${SYNTHAUDIT_REPORT_DIR}/node_modules/vega-lite/build/vega-lite.min.js
  ${SYNTHAUDIT_REPORT_DIR}/node_modules/vega-embed/build/vega-embed.min.js)

set(_missing_bundle OFF)
foreach(bundle ${SYNTHAUDIT_NPM_BUNDLES})
  if(NOT EXISTS ${bundle})
    set(_missing_bundle ON)
  endif()
endforeach()
if(_missing_bundle)
  # scripts/install-deps normally does this; do it here too for a bare `cmake` run.
  find_program(SYNTHAUDIT_NPM npm)
  if(NOT SYNTHAUDIT_NPM)
    message(FATAL_ERROR "report/node_modules is missing and npm is not installed: run scripts/install-deps")
  endif()
  message(STATUS "Installing the report's JavaScript: npm ci --prefix report")
  execute_process(COMMAND ${SYNTHAUDIT_NPM} ci --prefix ${SYNTHAUDIT_REPORT_DIR} --no-audit --no-fund
                  RESULT_VARIABLE _npm_result)
  if(NOT _npm_result EQUAL 0)
    message(FATAL_ERROR "npm ci --prefix report failed (${_npm_result}); run scripts/install-deps")
  endif()
endif()

set(SYNTHAUDIT_REPORT_ASSETS_CPP ${PROJECT_BINARY_DIR}/generated/report_assets.cpp)
set(_asset_names kVegaJs kVegaLiteJs kVegaEmbedJs kReportJs kReportCss)
set(_asset_files ${SYNTHAUDIT_NPM_BUNDLES}
  ${SYNTHAUDIT_REPORT_DIR}/src/report.js ${SYNTHAUDIT_REPORT_DIR}/src/report.css)
add_custom_command(
  OUTPUT ${SYNTHAUDIT_REPORT_ASSETS_CPP}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/generated
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${SYNTHAUDIT_REPORT_ASSETS_CPP}
          "-DNAMES=${_asset_names}" "-DFILES=${_asset_files}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${_asset_files} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
          ${SYNTHAUDIT_REPORT_DIR}/package-lock.json
  COMMENT "Embedding the report's JavaScript and CSS"
  VERBATIM)
