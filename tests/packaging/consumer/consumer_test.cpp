// A consumer's conformance test: a hand-written typestar::Device (a synchronous simulation of a
// timer, no threads) registered against timer.yaml in one line.
#include <memory>
#include <stdexcept>
#include <string>

#include "typestar/gtest/gtest.hpp"

namespace {

/// Inputs start, cancel, wait; outputs ok, quiet, err, onFired, onCancelled.
class TimerDevice final : public typestar::Device {
public:
    [[nodiscard]] const typestar::Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const typestar::Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] std::string name() const override { return "consumer-timer"; }
    void reset() override { state_ = State::Idle; }
    typestar::Symbol step(typestar::Symbol input) override {
        const std::string& in = inputs_.name(input);
        std::string out = "err";
        if (state_ == State::Idle && in == "start") {
            state_ = State::Running;
            out = "ok";
        } else if (state_ == State::Idle && in == "wait") {
            out = "quiet";
        } else if (state_ == State::Running && in == "cancel") {
            state_ = State::Cancelling;
            out = "ok";
        } else if (state_ == State::Running && in == "wait") {
            state_ = State::Idle;
            out = "onFired";
        } else if (state_ == State::Cancelling && in == "wait") {
            state_ = State::Idle;
            out = "onCancelled";
        } else {
            state_ = State::Broken;
        }
        if (state_ == State::Broken) out = "err";
        return outputs_.at(out);
    }

private:
    enum class State { Idle, Running, Cancelling, Broken };
    typestar::Alphabet inputs_{{"start", "cancel", "wait"}};
    typestar::Alphabet outputs_{{"ok", "quiet", "err", "onFired", "onCancelled"}};
    State state_ = State::Idle;
};

}  // namespace

TYPESTAR_SPEC_TESTS(CONSUMER_SPEC, [] { return std::make_unique<TimerDevice>(); });
