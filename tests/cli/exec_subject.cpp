// A user's own test binary for the `exec:` device tests: a small class of its own (Beeper: `start`
// once, then `onBeep` from another thread 20 ms later) registered with TYPESTAR_SPEC_TESTS through
// a LearningPurpose, so `typestar learn|check --device exec:THIS#Beeper` reaches it.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>

#include "typestar/device/inprocess.hpp"
#include "typestar/device/purpose.hpp"
#include "typestar/gtest/gtest.hpp"

namespace {

class Beeper {
public:
    std::function<void()> on_beep;
    ~Beeper() {
        if (timer_.joinable()) timer_.join();
    }
    void start() {
        if (started_) throw std::logic_error("already started");
        started_ = true;
        timer_ = std::thread([this] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            on_beep();
        });
    }

private:
    bool started_ = false;
    std::thread timer_;
};

std::unique_ptr<typestar::Device> make_beeper() {
    using namespace std::chrono_literals;
    auto definition = typestar::LearningPurpose<Beeper>("Beeper")
                          .framework("exec-subject-1")
                          .reset([](const std::shared_ptr<typestar::CallbackSink>& sink) {
                              auto b = std::make_shared<Beeper>();
                              b->on_beep = [sink] { sink->emit("onBeep"); };
                              return b;
                          })
                          .callin("start", [](Beeper& b) { b.start(); })
                          .callback("onBeep")
                          .timing({60ms, 2ms})
                          .build();
    return std::make_unique<typestar::InProcessDevice>(std::move(definition));
}

const char* spec_path() {
    const char* s = std::getenv("TYPESTAR_EXEC_SUBJECT_SPEC");
    return s != nullptr ? s : "beeper.yaml";
}

}  // namespace

TYPESTAR_SPEC_TESTS(spec_path(), make_beeper, typestar::SpecTestOptions{.name = "Beeper", .device_url = {}});
