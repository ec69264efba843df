// A hidden agent with a rare flake (issue 39), shared by the session and HTTP flake tests: connect /
// send / close with the callback onConnected, where `send` in the open state answers `err` in a run
// with probability p, drawn once per run from a seeded generator. Open and closed differ only in
// `send` (close and connect do the same in both), so one wrong `connect wait send` makes the open
// state look like the closed one: the flake that merges two states.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar::testing_support {

/// The true protocol.
inline const char* const kFlakyConnection = R"(typestar: 1
name: Connector
callins: [close, connect, send]
callbacks: [onConnected]
initial: closed
states:
  closed:
    callins:
      connect: connecting
      close: closed
  connecting:
    callbacks:
      onConnected: open
  open:
    callins:
      send: open
      close: closed
      connect: connecting
)";

inline spec::Spec flaky_connection_truth() { return spec::parse_spec(kFlakyConnection, "connector.yaml"); }

/// The truth, except that in a run drawn flaky (probability `rate`, at reset) every `send` the truth
/// answers `ok` answers `err` (absorbing: the rest of the run answers `err`). Not deterministic:
/// Device::deterministic() keeps its default, false. The generator may be shared (an agent's devices).
class FlakyConnection final : public Device {
public:
    FlakyConnection(double rate, std::shared_ptr<std::mt19937_64> random)
        : model_(synchronous_closure(flaky_connection_truth().typestate), "model:connector"),
          rate_(rate),
          random_(std::move(random)) {
        send_ = *model_.inputs().find("send");
        ok_ = *model_.outputs().find(kOk);
        err_ = *model_.outputs().find(kErr);
    }
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    /// As a DroidStar agent declares them: `err` absorbing, a quiet `wait` changes nothing.
    DeviceTraits traits() const override { return closure_traits(inputs(), outputs(), true); }
    std::string name() const override { return "flaky-connection"; }
    void reset() override {
        model_.reset();
        flaky_ = std::bernoulli_distribution(rate_)(*random_);
        refused_ = false;
    }
    Symbol step(Symbol input) override {
        if (refused_) return err_;
        if (flaky_ && input == send_) {
            ModelDevice probe = model_;  // what the truth answers, without moving the device
            if (probe.step(input) == ok_) {
                refused_ = true;
                return err_;
            }
        }
        return model_.step(input);
    }

private:
    ModelDevice model_;
    double rate_;
    std::shared_ptr<std::mt19937_64> random_;
    bool flaky_ = false, refused_ = false;
    Symbol send_ = 0, ok_ = 0, err_ = 0;
};

}  // namespace typestar::testing_support
