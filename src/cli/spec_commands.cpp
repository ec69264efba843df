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
#include "typestar/session/proposal.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/json.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/suite.hpp"
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
                if (is_register_automaton_file(file)) {
                    const ra::RegisterAutomaton a = load_register_automaton(file);
                    std::cout << "ok: " << file << " (register automaton: " << a.locations.size() << " locations, "
                              << a.max_registers() << " registers at most, " << a.num_transitions() << " transitions)\n";
                    continue;
                }
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
        if (is_register_automaton_file(opt->spec)) {  // a register automaton: yaml, dot or svg
            const bool xml = lower_extension(opt->spec) == ".xml";
            ra::RaSpec r;
            if (xml)
                r.automaton = load_register_automaton(opt->spec);
            else
                r = ra::load_register_spec(opt->spec);
            if (opt->format == "yaml") {
                if (xml) r.provenance["imported_from"] = opt->spec;
                emit(ra::write_register_spec(r), opt->output);
            } else if (opt->format == "dot") {
                emit(ra::write_register_dot(r.automaton), opt->output);
            } else if (opt->format == "svg") {
                emit(svg_of(ra::write_register_dot(r.automaton)), opt->output);
            } else {
                print_error(opt->spec + " is a register automaton: --format " + opt->format +
                            " is for typestates (use yaml, dot or svg)");
                exit_with(kExitBadInput);
            }
            return;
        }
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

/// The signature of `a` as text lines (inputs and outputs with parameter types), for comparing.
std::vector<std::string> signature_lines(const ra::RegisterAutomaton& a) {
    std::vector<std::string> out;
    auto add = [&](const char* what, const std::vector<ra::SymbolDecl>& ds) {
        for (const auto& d : ds) {
            std::string t = std::string(what) + " " + d.name + "(";
            for (std::size_t i = 0; i < d.params.size(); ++i) t += std::string(i ? ", " : "") + ra::type_name(d.params[i].type);
            out.push_back(t + ")");
        }
    };
    add("input", a.inputs);
    add("output", a.outputs);
    std::sort(out.begin(), out.end());
    return out;
}

/// `typestar diff A B` for two register automata: the shortest separating data trace up to `depth`
/// steps (iterative deepening over one data word per data class), exit 1 when one exists.
void diff_register_automata(const std::string& old_file, const std::string& new_file, std::size_t depth) {
    const ra::RegisterAutomaton a = load_register_automaton(old_file);
    ra::RegisterAutomaton b = load_register_automaton(new_file);
    const auto sa = signature_lines(a), sb = signature_lines(b);
    if (sa != sb) {
        std::cout << "different signatures:\n";
        for (const auto& l : sa)
            if (std::find(sb.begin(), sb.end(), l) == sb.end()) std::cout << "  - " << l << "  (only in " << old_file << ")\n";
        for (const auto& l : sb)
            if (std::find(sa.begin(), sa.end(), l) == sa.end()) std::cout << "  + " << l << "  (only in " << new_file << ")\n";
        std::cout << std::flush;
        exit_with(kExitFinding);
    }
    b = ra::renumbered_like(a, b);  // same symbols: numbered as in a, so data words mean the same
    const auto cex = ra::separating_word(a, b, depth);
    if (!cex) {
        std::cout << "same behaviour on every data word of up to " << depth
                  << " steps (one per data class): bounded evidence, not a proof\n" << std::flush;
        return;
    }
    ra::RaSimulator old_sim(a), new_sim(b);
    const ra::DataWord old_out = old_sim.run(cex->inputs), new_out = new_sim.run(cex->inputs);
    std::cout << "different: a shortest separating data trace (" << cex->inputs.size() << " steps):\n";
    for (std::size_t i = 0; i < cex->inputs.size(); ++i) {
        const std::string o = ra::format_symbol(a.outputs, old_out[i]), n = ra::format_symbol(a.outputs, new_out[i]);
        std::cout << "  " << i + 1 << ". " << ra::format_symbol(a.inputs, cex->inputs[i]) << " -> "
                  << (i + 1 == cex->inputs.size() ? o + " (" + old_file + ") vs " + n + " (" + new_file + ")" : o) << "\n";
    }
    std::cout << "  (" << cex->reason << ")\n" << std::flush;
    exit_with(kExitFinding);
}

void add_diff(CLI::App& app) {
    struct Options {
        std::string old_file;
        std::string new_file;
        std::string picture;
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
    cmd->add_option("--depth", opt->depth,
                    "register automata: look for a separating data trace of up to this many steps (default 4)");
    cmd->callback([opt] {
        const bool old_ra = is_register_automaton_file(opt->old_file);
        const bool new_ra = is_register_automaton_file(opt->new_file);
        if (old_ra || new_ra) {
            if (!old_ra || !new_ra) {
                print_error("cannot compare a register automaton with a typestate: " +
                            (old_ra ? opt->old_file : opt->new_file) + " is a register automaton, " +
                            (old_ra ? opt->new_file : opt->old_file) + " is not");
                exit_with(kExitBadInput);
            }
            if (!opt->picture.empty()) {
                print_error("--picture is for typestates; draw each register automaton with `export --format svg`");
                exit_with(kExitBadInput);
            }
            diff_register_automata(opt->old_file, opt->new_file, opt->depth);
            return;
        }
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
        std::cout << spec::format_diff(diff);
        // Not behaviour, but what every CI run executes: a change of B is said, with the suite sizes.
        // (Only between two specs: a Mealy DOT file declares no bound.)
        if (!is_dot_file(opt->old_file) && !is_dot_file(opt->new_file)) {
            if (const std::string b = bound_change(old_spec, new_spec); !b.empty()) std::cout << "\nNote: " << b << ".\n";
        }
        std::cout << std::flush;
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
