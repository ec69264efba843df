# The upgrade check across real JVM behaviour (cmake -P; docs/targets/java_upgrade.md): the spec
# learned on CompletableFuture (specs/targets/java_future.yaml), checked against FutureTask behind the
# same alphabet, must fail with the exact counterexample (FutureTask.cancel(true) interrupts the
# running computation, CompletableFuture.cancel does not); learning the FutureTask seeded with the
# old spec proposes the new one, and the diff names the changed transition.
#   -DTYPESTAR=<typestar CLI> -DSPEC=<java_future.yaml> -DAGENTS=<fixture dir> -DWORK=<scratch dir>
file(MAKE_DIRECTORY "${WORK}")
file(READ "${AGENTS}/java_futuretask.url" url)
string(STRIP "${url}" url)
set(ENV{TYPESTAR_DEVICE_TOKEN_FILE} "${AGENTS}/token")
unset(ENV{TYPESTAR_DEVICE_TOKEN})

function(expect_in text)
  foreach(expected IN LISTS ARGN)
    string(FIND "${text}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing from the output: ${expected}")
    endif()
  endforeach()
endfunction()

execute_process(COMMAND "${TYPESTAR}" check "${SPEC}" --device "${url}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
message("${out}${err}")
if(NOT code EQUAL 1)
  message(FATAL_ERROR "typestar check against FutureTask exited ${code}; expected 1 (non-conformance)")
endif()
expect_in("${out}"
  # (cancel right after `done`, while FutureTask's `interrupted` is undelivered, is outside the
  # purpose's callbacksDrained: the device answers unknown:purpose where the spec expects ok, so it
  # is not where the spec says — that answer is the counterexample, issue 34 item 3)
  "counterexample: ${url} does not conform to java.util.concurrent.Future (test 31 of 85: state s5, input wait, then suffix cancel cancel)\n"
  "  step  state  input   expected  actual\n"
  "  1     s0     submit  ok        ok\n"
  "  2     s3     cancel  ok        ok\n"
  "  3     s5     wait    done      done\n"
  "  4     s7     cancel  ok        unknown:purpose  <- differs\n"
  "  5     s7     cancel  ok        err\n"
  "step 4: the device answered unknown:purpose to cancel where the spec expects ok (in state s7)")

file(REMOVE "${WORK}/java_future.proposed.yaml")
execute_process(COMMAND "${TYPESTAR}" learn --device "${url}" --from "${SPEC}" --out "${WORK}/java_future.proposed.yaml"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "learning the FutureTask from the old spec failed (${code})")
endif()
file(READ "${WORK}/java_future.proposed.yaml" proposed)
expect_in("${proposed}" "  s8:\n    callbacks:\n      interrupted: s7\n")

execute_process(COMMAND "${TYPESTAR}" diff "${SPEC}" "${WORK}/java_future.proposed.yaml"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
message("${out}${err}")
expect_in("${out}"
  "| s5    | submit cancel | wait   | changed | done -> s7 | done -> s8 |"
  "| 4   | cancel | ok         | err        | <-  |")
