# Steps shared by the cmake -P scripts that install typestar and build projects against it
# (tests/install/run_pipe_reader.cmake, tests/packaging/run_consumer.cmake). Each step stops the
# script with FATAL_ERROR and the command's whole output when it does not go as expected.

# Runs a command that must succeed; its stdout and stderr become ${output} in the caller.
function(run)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGN}\n${out}${err}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

# Runs a command that must fail (a non-zero exit code); its output becomes ${output} in the caller.
function(run_failing)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
  if(code EQUAL 0)
    message(FATAL_ERROR "expected a failure, but it passed: ${ARGN}\n${out}${err}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

# ${output} must contain `text` (literally).
function(expect text)
  string(FIND "${output}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${text}' in:\n${output}")
  endif()
endfunction()

function(expect_file path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "expected the file ${path}")
  endif()
endfunction()

# `cmake --install build_dir --prefix prefix`, for the build configuration `config` when not empty.
function(install_typestar build_dir prefix config)
  set(install_config "")
  if(config)
    set(install_config --config "${config}")
  endif()
  run("${CMAKE_COMMAND}" --install "${build_dir}" --prefix "${prefix}" ${install_config})
endfunction()
