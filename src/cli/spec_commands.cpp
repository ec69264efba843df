// Spec subcommands: validate, export, import, diff.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "typestar/core/error.hpp"
#include "typestar/session/document.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#if TYPESTAR_HAVE_RENDER
#include "typestar/render/svg.hpp"
#endif

namespace typestar::cli {
namespace {

namespace fs = std::filesystem;

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

/// A spec name made from a file's stem.
std::string name_from_path(const std::string& path) {
    return spec::sanitize_name(fs::path(path).stem().string(), "imported");
}

void print_diagnostics(const SpecError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
}

/// The spec of a Mealy DOT file. Bad DOT, a machine that is no closure (at the edge's line) or an
/// unreadable file: SpecError, which main prints, ending with status 2.
spec::Spec spec_from_dot(const std::string& path, const std::string& name) { return spec::load_dot_spec(path, name); }

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
                const Document document = load_document(file);
                std::cout << "ok: " << file << " (" << document_summary(document) << ")\n";
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
        // The session exports by kind (a format that does not apply: std::invalid_argument, exit 2).
        const Document document = load_document(opt->spec);
        const std::string& f = opt->format;
        const ExportFormat format = f == "yaml" ? ExportFormat::Yaml
                                    : f == "mealy-dot" ? ExportFormat::MealyDot
                                    : f == "json"      ? ExportFormat::Json
                                                       : ExportFormat::Picture;  // dot, svg
        std::string text = export_document(document, format);
        if (f == "svg") text = svg_of(text);
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
        std::string format = "text";
        std::size_t depth = 4;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("diff", "Compare the behaviour of two specs (YAML, or Mealy DOT). "
                                           "Exit 0 same behaviour, 1 different, 2 bad input.");
    cmd->add_option("old", opt->old_file, "old spec (.yaml, or .dot Mealy machine)")->required();
    cmd->add_option("new", opt->new_file, "new spec (.yaml, or .dot Mealy machine)")->required();
    cmd->add_option("--picture", opt->picture,
                    "also draw both typestates overlaid (added green, removed red) into this file, "
                    "written atomically: .svg (drawn by Graphviz) or .dot");
    cmd->add_option("--format", opt->format,
                    "text (the Markdown report, default) or json (typestate specs: the changed transitions, "
                    "callins, callbacks and unpaired states, for programs)");
    cmd->add_option("--depth", opt->depth,
                    "register automata: look for a separating data trace of up to this many steps (default 4)");
    cmd->callback([opt] {
        if (!opt->picture.empty() && !is_svg_file(opt->picture) && !is_dot_file(opt->picture)) {
            print_error("--picture " + opt->picture + ": the file must end in .svg or .dot");
            exit_with(kExitBadInput);
        }
        if (opt->format != "text" && opt->format != "json") {
            print_error("unknown --format '" + opt->format + "' (text or json)");
            exit_with(kExitBadInput);
        }
        // The session compares by kind (two kinds, or a picture of register automata: exit 2).
        const Document old_document = load_document(opt->old_file);
        const Document new_document = load_document(opt->new_file);
        const DocumentDiff diff = diff_documents(old_document, new_document, opt->depth, !opt->picture.empty());
        if (opt->format == "json" && diff.json.empty()) {
            print_error("diff --format json compares two typestate specs (.yaml); " +
                        (old_document.spec ? opt->new_file : opt->old_file) + " is not one");
            exit_with(kExitBadInput);
        }
        if (!opt->picture.empty())
            spec::write_file_atomically(opt->picture,
                                        is_svg_file(opt->picture) ? svg_of(diff.picture_dot) : diff.picture_dot);
        std::cout << (opt->format == "json" ? diff.json : diff.text)
                  << std::flush;
        if (!diff.same) exit_with(kExitFinding);
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
