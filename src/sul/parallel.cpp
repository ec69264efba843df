#include "typestar/sul/parallel.hpp"

#include "typestar/core/error.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace typestar {

ParallelOracle::ParallelOracle(std::vector<Device*> devices, QueryCounter* counter)
    : devices_(std::move(devices)), counter_(counter) {
    if (devices_.empty()) throw std::invalid_argument("a device pool needs at least one device");
    for (const Device* d : devices_) {
        if (!d) throw std::invalid_argument("a device pool got a null device");
        if (!(d->inputs() == devices_.front()->inputs()) || !(d->outputs() == devices_.front()->outputs()) ||
            !(d->traits() == devices_.front()->traits()))
            throw std::invalid_argument("devices of a pool must have the same inputs, outputs and traits: '" +
                                        d->name() + "' differs from '" + devices_.front()->name() + "'");
    }
    if (devices_.size() > 1) {
        threads_.reserve(devices_.size());
        for (std::size_t i = 0; i < devices_.size(); ++i) threads_.emplace_back([this, i] { worker(i); });
    }
}

ParallelOracle::~ParallelOracle() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
}

void ParallelOracle::run_one(Device& device, std::size_t query) {
    const Query& q = batch_[query];
    Word word(q.prefix.begin(), q.prefix.end());
    word.insert(word.end(), q.suffix.begin(), q.suffix.end());
    RunResult run = run_with_timing_retries(device, word);
    std::copy(run.outputs.begin() + static_cast<std::ptrdiff_t>(q.prefix.size()), run.outputs.end(),
              q.answer.begin());
    runs_[query] = std::move(run);
}

void ParallelOracle::worker(std::size_t index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        start_.wait(lock, [&] { return stopping_ || round_ != seen; });
        if (stopping_) return;
        seen = round_;
        while (!failed_ && next_ < batch_.size()) {
            const std::size_t query = next_++;
            lock.unlock();
            try {
                run_one(*devices_[index], query);
                lock.lock();
            } catch (...) {
                lock.lock();
                errors_[query] = std::current_exception();
                failed_ = true;
            }
        }
        if (--busy_ == 0) done_.notify_all();
    }
}

void ParallelOracle::check_outputs_agree() {
    // Devices whose outputs grow as answered (Mealy devices) may learn new names on different
    // devices: each new name is declared to the others in the order of first device to answer it;
    // two devices that gave one id to different names cannot be compared, and that is an error.
    const Alphabet& front = devices_.front()->outputs();
    bool grew = false;
    for (const Device* d : devices_) grew = grew || d->outputs().size() != front.size();
    if (!grew) return;
    std::vector<std::string> all = front.names();
    for (const Device* d : devices_) {
        const Alphabet& a = d->outputs();
        for (Symbol o = 0; o < a.size(); ++o) {
            if (o < all.size() && all[o] != a.name(o))
                throw DeviceError("the devices of a pool learned new outputs in different orders (output " +
                                  std::to_string(o) + " is '" + all[o] + "' on " + devices_.front()->name() +
                                  " and '" + a.name(o) + "' on " + d->name() +
                                  "): their answers cannot be compared; use one device, or declare the outputs up front");
            if (o >= all.size()) all.push_back(a.name(o));
        }
    }
    for (Device* d : devices_) (void)d->declare_outputs(all);
}

void ParallelOracle::query_all(std::span<const Query> batch) {
    if (batch.empty()) return;
    if (counter_ != nullptr) counter_->reserve(batch.size());
    batch_ = batch;
    runs_.assign(batch.size(), RunResult{});
    errors_.assign(batch.size(), nullptr);
    if (threads_.empty() || batch.size() == 1) {
        for (std::size_t i = 0; i < batch.size(); ++i) run_one(*devices_.front(), i);
    } else {
        std::unique_lock<std::mutex> lock(mutex_);
        next_ = 0;
        failed_ = false;
        busy_ = threads_.size();
        ++round_;
        start_.notify_all();
        done_.wait(lock, [&] { return busy_ == 0; });
        for (auto& e : errors_)
            if (e) std::rethrow_exception(e);
        check_outputs_agree();
    }
    if (counter_ != nullptr)
        for (const RunResult& r : runs_) counter_->count_executed(r.steps, r.waits, r.timing_retries);
}

Word ParallelOracle::query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) {
    if (!adaptive()) return MembershipOracle::query_adaptive(prefix, next, outputs);
    return detail::adaptive_query_on(*devices_.front(), counter_, prefix, next, outputs);
}

}  // namespace typestar
