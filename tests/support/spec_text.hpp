// Spec texts as tests compare them: a learned spec against a committed one, the provenance block
// aside (it names the tool and the device URL, which differ from run to run). Header-only.
#pragma once

#include <sstream>
#include <string>

namespace typestar::testing_support {

/// `yaml` without its `provenance:` block (the line and the indented lines under it).
inline std::string without_provenance(const std::string& yaml) {
    std::string out;
    std::istringstream in(yaml);
    bool skipping = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "provenance:") {
            skipping = true;
            continue;
        }
        if (skipping && line.rfind("  ", 0) == 0) continue;
        skipping = false;
        out += line + "\n";
    }
    return out;
}

}  // namespace typestar::testing_support
