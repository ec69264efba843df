# The room-size test: cmake -DROOT=<source dir> -P CheckRoomSize.cmake
cmake_minimum_required(VERSION 3.25)
# Every C++ source and header of the library, the plugin and the CLI (src/, include/, plugin/), and
# every source of the device agents and runners under device/ (*.java, *.js, *.mjs, *.cpp, *.hpp; not
# under node_modules/, which npm fills), has at most 800 lines, unless the file says why in a line
# "// Over 800 lines: <reason>", or is listed in `pending` below (a split not yet done); and every
# function defined at namespace scope in the C++ files of src/, include/ and plugin/ has at most 120
# lines (from its head to its closing brace), unless the comment just above its head has a line
# "// Over 120 lines: <reason>". Prints each oversized file and function with its line count; exits
# non-zero when there is one.
#
# A function is read without a parser, by the house layout (clang-format): its head starts in
# column 0 and holds a '(', its body is indented, and it ends at the next '}' in column 0. Member
# functions defined inside a class body (indented) are not measured, nor are the functions of
# device/ (its Java and JavaScript are laid out otherwise: only their files' length is checked).
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P CheckRoomSize.cmake")
endif()
set(limit 800)
set(function_limit 120)
# Splits not yet done, each with its reason; remove a line when its file is split.
set(pending
)
# C++ files: both rules. Device files: the file rule only.
file(GLOB_RECURSE cpp_files RELATIVE "${ROOT}"
  "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp" "${ROOT}/include/*.hpp"
  "${ROOT}/plugin/*.cpp" "${ROOT}/plugin/*.hpp")
file(GLOB_RECURSE device_files RELATIVE "${ROOT}"
  "${ROOT}/device/*.java" "${ROOT}/device/*.js" "${ROOT}/device/*.mjs"
  "${ROOT}/device/*.cpp" "${ROOT}/device/*.hpp")
list(FILTER device_files EXCLUDE REGEX "(^|/)node_modules/")  # installed packages, not ours
set(files ${cpp_files} ${device_files})
list(SORT files)

# Counts the functions of `file` (its text in `text`) over function_limit lines without a reason;
# prints each and adds their number to `out`.
function(check_function_lengths file text out)
  # One list item per line: ';' and brackets would split or join items, so they are replaced first.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(found 0)
  set(number 0)
  set(head 0)          # the line of the function being read (0: none)
  set(reason FALSE)    # the comment above the next head says why it is long
  set(excused FALSE)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]" OR line STREQUAL "" OR line MATCHES "^#")
      if(head EQUAL 0 AND NOT line MATCHES "^[ \t]*//")
        set(reason FALSE)
      endif()
      continue()
    endif()
    if(head GREATER 0)
      if(line MATCHES "^}")
        math(EXPR length "${number} - ${head} + 1")
        if(length GREATER function_limit AND NOT excused)
          message("${file}:${head}: ${head_text}: ${length} lines (at most ${function_limit}: split it, or say why in a comment line \"// Over ${function_limit} lines: ...\" just above it)")
          math(EXPR found "${found} + 1")
        endif()
        set(head 0)
        set(reason FALSE)
        continue()
      endif()
      set(head 0)  # a column-0 line that is not the end: that was no function body
    endif()
    if(line MATCHES "^//")
      if(line MATCHES "^// Over ${function_limit} lines: ")
        set(reason TRUE)
      endif()
    elseif(line MATCHES "^template")
    elseif(line MATCHES "\\(" AND NOT line MATCHES ";$" AND NOT line MATCHES "^(namespace|class|struct|enum|union|extern|using|typedef|static_assert)[ (]")
      set(head ${number})
      string(REGEX REPLACE "\\(.*" "" head_text "${line}")
      set(excused ${reason})
      set(reason FALSE)
    else()
      set(reason FALSE)
    endif()
  endforeach()
  math(EXPR total "${${out}} + ${found}")
  set(${out} ${total} PARENT_SCOPE)
endfunction()

set(oversized 0)
set(long_functions 0)
list(LENGTH files checked)
foreach(file IN LISTS files)
  file(READ "${ROOT}/${file}" text)
  if(file IN_LIST cpp_files)
    check_function_lengths("${file}" "${text}" long_functions)
  endif()
  string(LENGTH "${text}" with)
  string(REPLACE "\n" "" flat "${text}")
  string(LENGTH "${flat}" without)
  math(EXPR lines "${with} - ${without}")
  if(lines LESS_EQUAL limit OR file IN_LIST pending)
    continue()
  endif()
  string(FIND "${text}" "// Over ${limit} lines: " reason)
  if(reason EQUAL -1)
    message("${file}: ${lines} lines (at most ${limit}: split it by role, or say why in a line \"// Over ${limit} lines: ...\")")
    math(EXPR oversized "${oversized} + 1")
  endif()
endforeach()
if(oversized GREATER 0 OR long_functions GREATER 0)
  message(FATAL_ERROR "${oversized} of ${checked} files over ${limit} lines, "
    "${long_functions} function(s) over ${function_limit} lines without a reason")
endif()
message("${checked} files, none over ${limit} lines (pending: ${pending}), "
  "no function over ${function_limit} lines without a reason")
