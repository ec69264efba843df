#include "typestar/monitor/callback_driver.hpp"

#include <stdexcept>
#include <utility>

namespace typestar {

CallbackDriver::CallbackDriver(std::shared_ptr<Monitor> monitor) : monitor_(std::move(monitor)) {
    if (!monitor_) throw std::invalid_argument("CallbackDriver: null monitor");
    listeners_.resize(monitor_->model().num_callbacks());
}

void CallbackDriver::listen(std::string_view callback, std::function<void()> listener) {
    listeners_[monitor_->model().callback(callback).symbol] = std::move(listener);
}

bool CallbackDriver::deliver(std::string_view callback) {
    const Event e = monitor_->model().callback(callback);
    if (!monitor_->observe(e)) return false;
    notify(e);
    return true;
}

std::optional<Violation> CallbackDriver::try_deliver(std::string_view callback) {
    const Event e = monitor_->model().callback(callback);
    auto violation = monitor_->check(e);
    if (!violation) notify(e);
    return violation;
}

std::optional<std::string> CallbackDriver::deliver_pending() {
    const auto e = monitor_->take_pending();
    if (!e) return std::nullopt;
    notify(*e);
    return monitor_->model().name(*e);
}

void CallbackDriver::notify(Event event) const {
    if (const auto& listener = listeners_[event.symbol]) listener();
}

}  // namespace typestar
