#include "typestar/monitor/interleavings.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>

#include "monitor_fixtures.hpp"
#include "support/random_typestate.hpp"

namespace typestar {
namespace {

std::vector<std::vector<Event>> all(const std::shared_ptr<const MonitorModel>& model, std::size_t bound) {
    Interleavings gen(model, bound);
    std::vector<std::vector<Event>> out;
    while (auto t = gen.next()) out.push_back(*t);
    EXPECT_EQ(gen.produced(), out.size());
    EXPECT_EQ(gen.next(), std::nullopt);  // stays exhausted
    return out;
}

// Every word over all events of length <= bound, by brute force (independent of the generator).
std::vector<std::vector<Event>> words_up_to(const MonitorModel& m, std::size_t bound) {
    std::vector<Event> events;
    for (Symbol c = 0; c < m.num_callins(); ++c) events.push_back(Event::callin(c));
    for (Symbol c = 0; c < m.num_callbacks(); ++c) events.push_back(Event::callback(c));
    std::vector<std::vector<Event>> layer{{}}, out{{}};
    for (std::size_t d = 0; d < bound; ++d) {
        std::vector<std::vector<Event>> next;
        for (const auto& w : layer)
            for (const auto& e : events) {
                auto x = w;
                x.push_back(e);
                next.push_back(x);
            }
        out.insert(out.end(), next.begin(), next.end());
        layer = std::move(next);
    }
    return out;
}

StateId run(const MonitorModel& m, const std::vector<Event>& w) {
    StateId s = m.initial();
    for (const auto& e : w) s = *m.step(s, e);
    return s;
}

// The generator yields exactly the maximal traces of length <= bound: each is a trace, each is
// either of full length or ends where nothing can happen, all are distinct, and every trace of
// length <= bound is a prefix of one of them.
void check_against_brute_force(const std::shared_ptr<const MonitorModel>& model, std::size_t bound) {
    const auto traces = all(model, bound);
    EXPECT_EQ(traces.size(), count_interleavings(*model, bound));
    std::set<std::vector<std::pair<int, Symbol>>> seen;
    auto key = [](const std::vector<Event>& w) {
        std::vector<std::pair<int, Symbol>> k;
        for (const auto& e : w) k.emplace_back(static_cast<int>(e.kind), e.symbol);
        return k;
    };
    for (const auto& t : traces) {
        ASSERT_TRUE(model->accepts(t)) << model->to_string(t);
        ASSERT_LE(t.size(), bound);
        if (t.size() < bound) {
            EXPECT_TRUE(model->enabled(run(*model, t)).empty()) << model->to_string(t);
        }
        EXPECT_TRUE(seen.insert(key(t)).second) << "duplicate " << model->to_string(t);
    }
    std::size_t accepted = 0;
    for (const auto& w : words_up_to(*model, bound)) {
        if (!model->accepts(w)) continue;
        ++accepted;
        bool covered = false;
        for (const auto& t : traces)
            if (t.size() >= w.size() && std::equal(w.begin(), w.end(), t.begin())) covered = true;
        EXPECT_TRUE(covered) << "not covered: " << model->to_string(w);
    }
    EXPECT_GE(accepted, traces.size());
}

TEST(Interleavings, AsyncTaskUpToTwo) {
    const auto model = std::make_shared<const MonitorModel>(monitor_test::async_task());
    std::vector<std::string> texts;
    for (const auto& t : all(model, 2)) texts.push_back(model->to_string(t));
    EXPECT_EQ(texts, (std::vector<std::string>{">cancel >cancel", ">cancel >execute", ">cancel <onCancelled",
                                               ">execute >cancel", ">execute <onPostExecute"}));
    EXPECT_EQ(count_interleavings(*model, 2), 5u);
}

TEST(Interleavings, MatchBruteForceOnReferenceTypestates) {
    check_against_brute_force(std::make_shared<const MonitorModel>(monitor_test::async_task()), 4);
    check_against_brute_force(std::make_shared<const MonitorModel>(monitor_test::quiet_timer()), 4);
    check_against_brute_force(std::make_shared<const MonitorModel>(monitor_test::toggle()), 3);
}

TEST(Interleavings, MatchBruteForceOnRandomTypestates) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        check_against_brute_force(
            std::make_shared<const MonitorModel>(testing_support::random_typestate(4, 2, 2, seed)), 3);
    }
}

TEST(Interleavings, BoundZeroYieldsTheEmptyTrace) {
    const auto model = std::make_shared<const MonitorModel>(monitor_test::async_task());
    const auto traces = all(model, 0);
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_TRUE(traces[0].empty());
    EXPECT_EQ(count_interleavings(*model, 0), 1u);
}

TEST(Interleavings, ShortTracesEndWhereNothingCanHappen) {
    // One callin into a state with nothing enabled: the only trace stops early.
    const auto model = std::make_shared<const MonitorModel>(
        monitor_test::make_typestate("Once", {"go"}, {}, {{"Ready", {{"go", "Done"}}, {}, {}}, {"Done", {}, {}, {}}}));
    const auto traces = all(model, 5);
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(model->to_string(traces[0]), ">go");
}

TEST(Interleavings, CountSaturatesInsteadOfOverflowing) {
    const MonitorModel model(monitor_test::toggle());  // 2 events everywhere: 2^bound traces
    EXPECT_EQ(count_interleavings(model, 10), 1024u);
    EXPECT_EQ(count_interleavings(model, 200), std::numeric_limits<std::uint64_t>::max());
}

TEST(Interleavings, NullModelIsRejected) {
    EXPECT_THROW(Interleavings(nullptr, 3), std::invalid_argument);
}

}  // namespace
}  // namespace typestar
