# nlohmann_json::nlohmann_json from the headers of PyPI's nlohmann-json package (the Python build
# installs it as a build requirement), for machines without the system package.
find_package(Python 3.10 COMPONENTS Interpreter QUIET)
if(Python_Interpreter_FOUND)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c "import nlohmann_json, os; print(os.path.join(os.path.dirname(nlohmann_json.__file__), 'include'))"
    OUTPUT_VARIABLE _tmakit_nlohmann_include OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT _tmakit_nlohmann_include OR NOT EXISTS "${_tmakit_nlohmann_include}/nlohmann/json.hpp")
  message(FATAL_ERROR "tmakit: nlohmann_json not found: install nlohmann-json3-dev (Debian) or the Python "
                      "package nlohmann-json (pip install nlohmann-json)")
endif()
message(STATUS "tmakit: nlohmann_json headers from the Python package: ${_tmakit_nlohmann_include}")
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${_tmakit_nlohmann_include}")
