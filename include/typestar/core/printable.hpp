// Text from outside (a file's names, a child process's output) made safe for one diagnostic line.
#pragma once

#include <string>
#include <string_view>

namespace typestar {

/// `text` safe to print on one terminal line: newline, tab and carriage return as \n \t \r, other
/// C0 controls and DEL as \xNN, C1 controls (U+0080..U+009F) as \u00NN, bytes that are not UTF-8
/// as \xNN. Everything else (printable ASCII, valid UTF-8) is kept. Every diagnostic that carries
/// text typestar did not write (a file's names, a child process's output) goes through it, so that
/// text can neither start a line of its own (a forged `other.yaml:1:1:`) nor send a terminal escape.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace typestar
