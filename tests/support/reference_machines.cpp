#include "support/reference_machines.hpp"

#include <string_view>
#include <utility>

#include "typestar/core/typestate.hpp"

namespace typestar::testing_support {

namespace {

/// Builder with transitions given by names, to keep the tables below readable.
class NamedBuilder {
public:
    NamedBuilder(std::vector<std::string> inputs, std::vector<std::string> outputs)
        : builder_(Alphabet(std::move(inputs)), Alphabet(std::move(outputs))) {}

    StateId state(std::string name) { return builder_.add_state(std::move(name)); }
    void edge(StateId from, std::string_view input, StateId to, std::string_view output) {
        builder_.set_transition(from, builder_.inputs().at(input), to, builder_.outputs().at(output));
    }
    [[nodiscard]] MealyMachine build() const { return builder_.build(); }

private:
    MealyBuilder builder_;
};

}  // namespace

MealyMachine angluin_example() {
    NamedBuilder b({"a", "b"}, {"0", "1"});
    const StateId s0 = b.state("s0");
    const StateId s1 = b.state("s1");
    const StateId s2 = b.state("s2");
    const StateId s3 = b.state("s3");
    b.edge(s0, "a", s2, "0");
    b.edge(s0, "b", s1, "0");
    b.edge(s1, "a", s3, "0");
    b.edge(s1, "b", s0, "1");
    b.edge(s2, "a", s0, "1");
    b.edge(s2, "b", s3, "0");
    b.edge(s3, "a", s1, "0");
    b.edge(s3, "b", s2, "0");
    return b.build();
}

MealyMachine coffee_machine() {
    NamedBuilder b({"water", "pod", "button", "clean"}, {"ok", "coffee", "error"});
    const StateId init = b.state("init");
    const StateId water = b.state("water");
    const StateId pod = b.state("pod");
    const StateId both = b.state("water_pod");
    const StateId done = b.state("done");
    const StateId error = b.state("error");
    for (StateId s : {init, water, pod, both, done}) b.edge(s, "clean", init, "ok");
    b.edge(init, "water", water, "ok");
    b.edge(init, "pod", pod, "ok");
    b.edge(init, "button", error, "error");
    b.edge(water, "water", water, "ok");
    b.edge(water, "pod", both, "ok");
    b.edge(water, "button", error, "error");
    b.edge(pod, "water", both, "ok");
    b.edge(pod, "pod", pod, "ok");
    b.edge(pod, "button", error, "error");
    b.edge(both, "water", both, "ok");
    b.edge(both, "pod", both, "ok");
    b.edge(both, "button", done, "coffee");
    b.edge(done, "water", error, "error");
    b.edge(done, "pod", error, "error");
    b.edge(done, "button", error, "error");
    for (std::string_view in : {"water", "pod", "button", "clean"}) b.edge(error, in, error, "error");
    return b.build();
}

MealyMachine combination_lock() {
    NamedBuilder b({"a", "b"}, {"locked", "open"});
    const StateId l0 = b.state("L0");
    const StateId l1 = b.state("L1");
    const StateId l2 = b.state("L2");
    const StateId open = b.state("Open");
    b.edge(l0, "a", l1, "locked");
    b.edge(l0, "b", l0, "locked");
    b.edge(l1, "a", l0, "locked");
    b.edge(l1, "b", l2, "locked");
    b.edge(l2, "a", open, "open");
    b.edge(l2, "b", l0, "locked");
    b.edge(open, "a", l0, "locked");
    b.edge(open, "b", l0, "locked");
    return b.build();
}

MealyMachine single_state() {
    NamedBuilder b({"a", "b"}, {"x", "y"});
    const StateId s = b.state("only");
    b.edge(s, "a", s, "x");
    b.edge(s, "b", s, "y");
    return b.build();
}

MealyMachine quiet_timer() {
    const std::string wait(kWait), quiet(kQuiet), ok(kOk), err(kErr);
    NamedBuilder b({"start", "cancel", wait}, {ok, quiet, err, "onFire"});
    const StateId idle = b.state("Idle");
    const StateId armed = b.state("Armed");
    const StateId elapsed = b.state("Elapsed");
    const StateId sink = b.state(std::string(kErrorSinkName));
    b.edge(idle, "start", armed, ok);
    b.edge(idle, "cancel", idle, ok);
    b.edge(idle, wait, idle, quiet);
    b.edge(armed, "start", sink, err);
    b.edge(armed, "cancel", idle, ok);
    b.edge(armed, wait, elapsed, quiet);  // time passes silently
    b.edge(elapsed, "start", sink, err);
    b.edge(elapsed, "cancel", idle, ok);
    b.edge(elapsed, wait, idle, "onFire");
    for (std::string_view in : {std::string_view("start"), std::string_view("cancel"), kWait})
        b.edge(sink, in, sink, err);
    return b.build();
}

std::vector<NamedMachine> reference_machines() {
    std::vector<NamedMachine> all;
    all.push_back({"angluin_example", angluin_example()});
    all.push_back({"coffee_machine", coffee_machine()});
    all.push_back({"combination_lock", combination_lock()});
    all.push_back({"single_state", single_state()});
    all.push_back({"quiet_timer", quiet_timer()});
    return all;
}

Typestate async_task_typestate() {
    using State = Typestate::State;
    Typestate ts;
    ts.name = "AsyncTask";
    ts.callins = {"execute", "cancel"};
    ts.callbacks = {"onPostExecute", "onCancelled"};
    ts.states = {
        State{"Start", {2, 4}, {}, Typestate::Wait::Quiet, {}},
        State{"Completed", {std::nullopt, 1}, {}, Typestate::Wait::Quiet, {}},
        State{"Running", {std::nullopt, 3}, Typestate::CallbackEdge{0, 1}, Typestate::Wait::Quiet, {}},
        State{"Cancelling", {std::nullopt, 3}, Typestate::CallbackEdge{1, 1}, Typestate::Wait::Quiet, {}},
        State{"CancelledEarly", {3, 4}, Typestate::CallbackEdge{1, 1}, Typestate::Wait::Quiet, {}},
    };
    ts.initial = 0;
    return ts;
}

}  // namespace typestar::testing_support
