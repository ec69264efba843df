// Spec subcommands: validate, export, import, diff.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/json.hpp"
#include "typestar/spec/spec.hpp"
#if TYPESTAR_HAVE_RENDER
#include "typestar/render/svg.hpp"
#endif

namespace typestar::cli {
namespace {

namespace fs = std::filesystem;

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

bool is_dot_file(const std::string& path) {
    const std::string ext = lower_extension(path);
    return ext == ".dot" || ext == ".gv";
}

bool is_svg_file(const std::string& path) { return lower_extension(path) == ".svg"; }

/// The SVG picture of `dot_text` (typestar::render, Graphviz's library); without it, exit 2.
std::string svg_of(const std::string& dot_text) {
#if TYPESTAR_HAVE_RENDER
    return render::render_svg(dot_text);
#else
    (void)dot_text;
    print_error("this typestar was built without Graphviz (TYPESTAR_BUILD_RENDER=OFF), so it cannot draw SVG; "
                "write DOT instead and run Graphviz's `dot -Tsvg` on it");
    exit_with(kExitBadInput);
#endif
}

/// A spec name ([A-Za-z0-9_.-]) made from a file's stem.
std::string name_from_path(const std::string& path) {
    std::string name = fs::path(path).stem().string();
    for (auto& c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (!std::isalnum(u) && c != '_' && c != '.' && c != '-') c = '_';
    }
    return name.empty() ? std::string("imported") : name;
}

void print_diagnostics(const SpecError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
}

/// The spec of a Mealy DOT file. Bad DOT, a machine that is no closure (at the edge's line) or an
/// unreadable file: SpecError, which main prints, ending with status 2.
spec::Spec spec_from_dot(const std::string& path, const std::string& name) { return spec::load_dot_spec(path, name); }

/// A YAML spec, or a Mealy DOT file converted to one.
spec::Spec load_any(const std::string& path) {
    if (is_dot_file(path)) return spec_from_dot(path, name_from_path(path));
    return spec::load_spec(path);
}

/// Writes `text` to `output` atomically, or to stdout when `output` is empty.
void emit(const std::string& text, const std::string& output) {
    if (output.empty()) {
        std::cout << text << std::flush;
    } else {
        spec::write_file_atomically(output, text);
    }
}

void add_validate(CLI::App& app) {
    auto files = std::make_shared<std::vector<std::string>>();
    auto* cmd = app.add_subcommand("validate", "Check spec files; print every diagnostic (exit 2 if any is invalid).");
    cmd->add_option("spec", *files, "spec files (YAML)")->required();
    cmd->callback([files] {
        bool all_valid = true;
        for (const auto& file : *files) {
            try {
                const spec::Spec s = spec::load_spec(file);
                std::cout << "ok: " << file << " (" << s.typestate.states.size() << " states, B="
                          << s.bounds.distinguisher << ")\n";
            } catch (const SpecError& e) {
                print_diagnostics(e);
                all_valid = false;
            }
        }
        std::cout << std::flush;
        if (!all_valid) exit_with(kExitBadInput);
    });
}

void add_export(CLI::App& app) {
    struct Options {
        std::string spec;
        std::string format;
        std::string output;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("export", "Write a spec as canonical YAML, a typestate picture (dot, or svg "
                                             "drawn by Graphviz), its synchronous closure as Mealy DOT, or JSON.");
    cmd->add_option("spec", opt->spec, "spec file (YAML)")->required();
    cmd->add_option("-f,--format", opt->format, "yaml | dot | svg | mealy-dot | json")
        ->required()
        ->check(CLI::IsMember({"yaml", "dot", "svg", "mealy-dot", "json"}));
    cmd->add_option("-o,--output", opt->output, "output file (default: stdout), written atomically");
    cmd->callback([opt] {
        const spec::Spec s = spec::load_spec(opt->spec);
        std::string text;
        if (opt->format == "yaml") {
            text = spec::write_spec(s);
        } else if (opt->format == "dot") {
            text = spec::write_typestate_dot(canonical(s.typestate));
        } else if (opt->format == "svg") {
            text = svg_of(spec::write_typestate_dot(canonical(s.typestate)));
        } else if (opt->format == "mealy-dot") {
            text = spec::write_mealy_dot(synchronous_closure(canonical(s.typestate)), s.typestate.name);
        } else {
            text = spec::write_spec_json(s);
        }
        emit(text, opt->output);
    });
}

void add_import(CLI::App& app) {
    struct Options {
        std::string input;
        std::string output;
        std::string name;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("import", "Turn a Mealy machine in DOT (a synchronous closure, e.g. from "
                                             "LearnLib or AALpy) into a canonical spec.");
    cmd->add_option("dot", opt->input, "Mealy DOT file")->required();
    cmd->add_option("-o,--output", opt->output, "spec file to write (default: stdout), written atomically");
    cmd->add_option("--name", opt->name, "typestate name (default: the file's stem)");
    cmd->callback([opt] {
        spec::Spec s = spec_from_dot(opt->input, opt->name.empty() ? name_from_path(opt->input) : opt->name);
        s.provenance.tool = version_string();
        s.provenance.device = "dot:" + opt->input;
        emit(spec::write_spec(s), opt->output);
    });
}

void add_diff(CLI::App& app) {
    struct Options {
        std::string old_file;
        std::string new_file;
        std::string picture;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("diff", "Compare the behaviour of two specs (YAML, or Mealy DOT). "
                                           "Exit 0 same behaviour, 1 different, 2 bad input.");
    cmd->add_option("old", opt->old_file, "old spec (.yaml, or .dot Mealy machine)")->required();
    cmd->add_option("new", opt->new_file, "new spec (.yaml, or .dot Mealy machine)")->required();
    cmd->add_option("--picture", opt->picture,
                    "also draw both typestates overlaid (added green, removed red) into this file, "
                    "written atomically: .svg (drawn by Graphviz) or .dot");
    cmd->callback([opt] {
        if (!opt->picture.empty() && !is_svg_file(opt->picture) && !is_dot_file(opt->picture)) {
            print_error("--picture " + opt->picture + ": the file must end in .svg or .dot");
            exit_with(kExitBadInput);
        }
        const spec::Spec old_spec = load_any(opt->old_file);
        const spec::Spec new_spec = load_any(opt->new_file);
        const spec::SpecDiff diff = spec::diff_specs(old_spec, new_spec);
        if (!opt->picture.empty()) {
            const std::string dot = spec::write_diff_dot(old_spec, new_spec);
            spec::write_file_atomically(opt->picture, is_svg_file(opt->picture) ? svg_of(dot) : dot);
        }
        std::cout << spec::format_diff(diff) << std::flush;
        if (!diff.empty()) exit_with(kExitFinding);
    });
}

}  // namespace

void register_spec_commands(CLI::App& app) {
    add_validate(app);
    add_export(app);
    add_import(app);
    add_diff(app);
}

}  // namespace typestar::cli
