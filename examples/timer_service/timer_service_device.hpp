// What this shows: the device adapter, typestar's in-process device API (DroidStar's learning
// purpose): how to make a fresh instance, which callins and callbacks exist, and the timing.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "typestar/device/inprocess.hpp"
#include "typestar/device/purpose.hpp"

namespace timer_service {

/// The learning purpose of a TimerService-like class `Service` (1.0 or 2.0).
template <class Service>
typestar::ClassDefinition definition(std::string framework) {
    using namespace std::chrono_literals;
    return typestar::LearningPurpose<Service>("TimerService")
        .framework(std::move(framework))
        // A fresh instance per query, its callbacks reported to the query's sink.
        .reset([](const std::shared_ptr<typestar::CallbackSink>& sink) {
            auto service = std::make_shared<Service>(8ms);
            service->on_fired = [sink] { sink->emit("onFired"); };
            service->on_cancelled = [sink] { sink->emit("onCancelled"); };
            return service;
        })
        // A callin that throws is refused: typestar sees `err`.
        .callin("start", [](Service& s) { s.start(); })
        .callin("cancel", [](Service& s) { s.cancel(); })
        .callback("onFired")
        .callback("onCancelled")
        // `wait` answers `quiet` after 150 ms without a callback (tmax, DroidStar §5.2); callbacks come
        // at least 2 ms after the callin that caused them (tmin).
        .timing({150ms, 2ms})
        .build();
}

/// The device the conformance tests run against.
template <class Service>
std::unique_ptr<typestar::Device> make_device(std::string framework) {
    return std::make_unique<typestar::InProcessDevice>(definition<Service>(std::move(framework)));
}

}  // namespace timer_service
