# Values from the class's code (issue 28): typestar_trace_comparisons(TARGET <t> [SOURCES <files>...])
# compiles the class under test with SanitizerCoverage's comparison tracing
# (-fsanitize-coverage=trace-cmp) and links typestar's collector, which records the constants the
# class compares against while an in-process callin runs; refinement then runs them (c-1, c, c+1 in a
# partition's declared range) besides its sampled values (docs/refinement.md "Values from the code").
# SOURCES: only these files of <t> get the flag (the class's translation units); without SOURCES,
# every source of <t> (give <t> = a library holding only the class). A source's options hold for
# its whole directory: another target of that directory compiling the same file gets the flag too. typestar's own code is never
# instrumented. With TYPESTAR_TRACE_CMP off (the default when the compiler lacks the flag) the
# function only links nothing and says so; learning then says "values from the code: not collected".

include(CheckCXXSourceCompiles)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_FLAGS "-fsanitize-coverage=trace-cmp")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)  # the hooks are the collector's, not linked here
check_cxx_source_compiles("int f(int v) { return v == 7 ? 1 : 0; }" TYPESTAR_COMPILER_HAS_TRACE_CMP)
cmake_pop_check_state()
option(TYPESTAR_TRACE_CMP "typestar_trace_comparisons() instruments classes with -fsanitize-coverage=trace-cmp"
       ${TYPESTAR_COMPILER_HAS_TRACE_CMP})
if(TYPESTAR_TRACE_CMP AND NOT TYPESTAR_COMPILER_HAS_TRACE_CMP)
  message(FATAL_ERROR "TYPESTAR_TRACE_CMP is ON, but ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} "
                      "does not accept -fsanitize-coverage=trace-cmp (gcc 8+ or clang 6+ do)")
endif()

function(typestar_trace_comparisons)
  cmake_parse_arguments(ARG "" "TARGET" "SOURCES" ${ARGN})
  if(NOT ARG_TARGET OR NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "typestar_trace_comparisons: TARGET '${ARG_TARGET}' is not a target")
  endif()
  if(NOT TYPESTAR_TRACE_CMP)
    message(STATUS "typestar: ${ARG_TARGET} built without comparison tracing (TYPESTAR_TRACE_CMP is OFF): "
                   "refinement samples values only")
    return()
  endif()
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${ARG_TARGET} APPEND PROPERTY COMPILE_OPTIONS
                 -fsanitize-coverage=trace-cmp)
  else()
    target_compile_options(${ARG_TARGET} PRIVATE -fsanitize-coverage=trace-cmp)
  endif()
  target_link_libraries(${ARG_TARGET} PRIVATE typestar_trace_cmp)
endfunction()
