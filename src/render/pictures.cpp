#include "typestar/render/pictures.hpp"

#include <string>
#include <string_view>
#include <system_error>

#include "typestar/core/error.hpp"
#include "typestar/render/svg.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"

namespace typestar::render {
namespace {

namespace fs = std::filesystem;

bool strip_suffix(std::string& s, std::string_view suffix) {
    if (s.size() < suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
    s.resize(s.size() - suffix.size());
    return true;
}

/// `<dir>/<spec><suffix>` for the proposal `<dir>/<spec>.proposed.yaml` (or `<dir>/<spec>.yaml`).
fs::path sibling(const fs::path& proposed_yaml, std::string_view suffix) {
    std::string name = proposed_yaml.filename().string();
    if (!strip_suffix(name, ".yaml")) strip_suffix(name, ".yml");
    strip_suffix(name, ".proposed");
    if (name.empty()) throw Error("no spec name in the proposal path '" + proposed_yaml.string() + "'");
    return proposed_yaml.parent_path() / (name + std::string(suffix));
}

}  // namespace

std::vector<fs::path> write_proposal_pictures(const spec::Spec* stored, const spec::Spec& proposed,
                                              const fs::path& proposed_yaml) {
    const fs::path proposed_svg = sibling(proposed_yaml, ".proposed.svg");
    const fs::path diff_svg = sibling(proposed_yaml, ".diff.svg");
    // Render everything before writing anything: a picture that cannot be drawn writes nothing.
    const std::string proposed_picture = render_svg(spec::write_typestate_dot(proposed.typestate));
    const std::string diff_picture = stored ? render_svg(spec::write_diff_dot(*stored, proposed)) : std::string();

    std::vector<fs::path> written;
    spec::write_file_atomically(proposed_svg, proposed_picture);
    written.push_back(proposed_svg);
    if (stored) {
        spec::write_file_atomically(diff_svg, diff_picture);
        written.push_back(diff_svg);
    } else {
        std::error_code ec;
        fs::remove(diff_svg, ec);
        if (ec) throw Error("could not remove the stale diff picture '" + diff_svg.string() + "': " + ec.message());
    }
    return written;
}

}  // namespace typestar::render
