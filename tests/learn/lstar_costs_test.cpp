// L*'s exact costs, pinned: for the reference machines, the AsyncTask closure and a few seeded
// random machines, with each counterexample strategy and with the perfect, Algorithm 2 and (up to 6
// states) Wp oracles: the rounds, the suffixes the table ends with, and the queries asked and
// executed per phase. Learning staying exact is checked elsewhere (lstar_test.cpp); these lines
// change whenever the learner asks something else — e.g. a different Rivest–Schapire break point
// adds a different suffix — so a change in them must be a deliberate one (update the table, and
// say why in the commit).
// The numbers were computed from the learner as of this test's commit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/random_mealy.hpp"
#include "support/reference_machines.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

enum class Eq { Perfect, Alg2, Wp };

const char* strategy_name(CexStrategy s) {
    switch (s) {
        case CexStrategy::RivestSchapire: return "rs";
        case CexStrategy::ShortestSuffix: return "shortest";
        case CexStrategy::AllSuffixes: return "all";
    }
    return "?";
}

/// One line: what was learned and what it cost.
std::string cost_line(const std::string& name, const MealyMachine& truth, CexStrategy strategy, Eq eq) {
    // The truth's own traits declared (as the pins were taken): this pins L*, not the defaults.
    ModelDevice device(truth, "model", infer_traits(truth));
    OracleStack stack(device);
    PerfectOracle perfect(truth);
    SuiteConfig suite;
    const std::size_t bound = std::max<std::size_t>(1, distinguisher_bound(minimize(truth)).value());
    suite.method = eq == Eq::Wp ? SuiteMethod::Wp : SuiteMethod::Algorithm2;
    suite.bound = bound;
    suite.extra_states = truth.num_states() - 1;  // Wp finds any machine with up to n states then
    SuiteEquivalenceOracle testing(stack.oracle(), suite);
    EquivalenceOracle& oracle = eq == Eq::Perfect ? static_cast<EquivalenceOracle&>(perfect) : testing;
    LearnerConfig config;
    config.counterexamples = strategy;
    config.initial_suffix_length = 1;  // counterexamples happen, so their analysis is pinned too
    LStar lstar(stack.oracle(), config);
    const LearnResult r = run_experiment(lstar, oracle, stack.counter());
    const bool exact = !separating_word(r.hypothesis, truth).has_value();
    std::string suffixes;
    for (const Word& w : lstar.suffixes()) {
        if (w.size() < 2) continue;  // the single inputs are always there
        suffixes += (suffixes.empty() ? "" : ",") + to_string(w, truth.inputs(), ".");
    }
    const auto& l = r.stats.learning;
    const auto& e = r.stats.equivalence;
    return name + " " + strategy_name(strategy) + " " +
           (eq == Eq::Perfect ? "perfect" : eq == Eq::Alg2 ? "alg2" : "wp") + ": " +
           (exact ? "exact" : "WRONG") + " states " + std::to_string(r.hypothesis.num_states()) + " rounds " +
           std::to_string(r.rounds) + " learning " + std::to_string(l.queries_asked) + "/" +
           std::to_string(l.queries_executed) + "/" + std::to_string(l.symbols_executed) + " equivalence " +
           std::to_string(e.queries_asked) + "/" + std::to_string(e.queries_executed) + "/" +
           std::to_string(e.symbols_executed) + " suffixes [" + suffixes + "]";
}

std::vector<std::string> all_cost_lines() {
    std::vector<testing_support::NamedMachine> machines = testing_support::reference_machines();
    machines.push_back({"async_task", synchronous_closure(testing_support::async_task_typestate())});
    for (std::uint64_t seed : {3u, 7u})
        machines.push_back({"random12_" + std::to_string(seed), testing_support::random_mealy(12, 3, 2, seed)});
    machines.push_back({"random40_5", testing_support::random_mealy(40, 2, 2, 5)});
    std::vector<std::string> lines;
    for (const auto& [name, m] : machines)
        for (CexStrategy s : {CexStrategy::RivestSchapire, CexStrategy::ShortestSuffix, CexStrategy::AllSuffixes})
            for (Eq eq : {Eq::Perfect, Eq::Alg2, Eq::Wp})
                if (eq != Eq::Wp || m.num_states() <= 6) lines.push_back(cost_line(name, m, s, eq));
    return lines;
}

// Columns: learning asked/executed/symbols, equivalence asked/executed/symbols (sul/stats.hpp).
const std::vector<std::string> kPinned = {
    "angluin_example rs perfect: exact states 4 rounds 2 learning 28/16/69 equivalence 0/0/0 suffixes [a.a]",
    "angluin_example rs alg2: exact states 4 rounds 2 learning 27/14/60 equivalence 25/12/52 suffixes [a.a]",
    "angluin_example rs wp: exact states 4 rounds 2 learning 28/15/64 equivalence 65/62/420 suffixes [a.a]",
    "angluin_example shortest perfect: exact states 4 rounds 2 learning 28/16/69 equivalence 0/0/0"
    " suffixes [a.a]",
    "angluin_example shortest alg2: exact states 4 rounds 2 learning 27/14/60 equivalence 25/12/52"
    " suffixes [a.a]",
    "angluin_example shortest wp: exact states 4 rounds 2 learning 28/15/64 equivalence 65/62/420"
    " suffixes [a.a]",
    "angluin_example all perfect: exact states 4 rounds 2 learning 45/23/123 equivalence 0/0/0"
    " suffixes [a.b.a.a,b.a.a,a.a]",
    "angluin_example all alg2: exact states 4 rounds 2 learning 45/22/119 equivalence 25/8/34"
    " suffixes [a.b.a.a,b.a.a,a.a]",
    "angluin_example all wp: exact states 4 rounds 2 learning 63/28/185 equivalence 65/49/332"
    " suffixes [a.a.a.b.a.a,a.a.b.a.a,a.b.a.a,b.a.a,a.a]",
    "coffee_machine rs perfect: exact states 6 rounds 3 learning 150/116/545 equivalence 0/0/0"
    " suffixes [pod.button,water.button]",
    "coffee_machine rs alg2: exact states 6 rounds 3 learning 150/110/521 equivalence 314/218/974"
    " suffixes [pod.button,water.button]",
    "coffee_machine rs wp: exact states 6 rounds 3 learning 153/120/675 equivalence 47337/47318/407781"
    " suffixes [pod.button.water,water.water.water.button.pod.button]",
    "coffee_machine shortest perfect: exact states 6 rounds 3 learning 150/116/545 equivalence 0/0/0"
    " suffixes [pod.button,water.button]",
    "coffee_machine shortest alg2: exact states 6 rounds 3 learning 150/110/521 equivalence 314/218/974"
    " suffixes [pod.button,water.button]",
    "coffee_machine shortest wp: exact states 6 rounds 3 learning 153/122/685 equivalence 47337/47318/407781"
    " suffixes [pod.button.water,water.water.water.button.pod.button]",
    "coffee_machine all perfect: exact states 6 rounds 3 learning 200/147/762 equivalence 0/0/0"
    " suffixes [water.pod.button,pod.button,pod.water.button,water.button]",
    "coffee_machine all alg2: exact states 6 rounds 3 learning 200/143/746 equivalence 314/196/877"
    " suffixes [water.pod.button,pod.button,pod.water.button,water.button]",
    "coffee_machine all wp: exact states 6 rounds 3 learning 400/257/1912 equivalence 47337/47243/407142"
    " suffixes [water.water.water.water.pod.button.water,water.water.water.pod.button.water,water.water.pod.button.water,water.pod.button.water,pod.button.water,button.water,pod.water.water.water.button.pod.button,water.water.water.button.pod.button,water.water.button.pod.button,water.button.pod.button,button.pod.button,pod.button]",
    "combination_lock rs perfect: exact states 4 rounds 3 learning 37/16/86 equivalence 0/0/0"
    " suffixes [b.a,a.b.a]",
    "combination_lock rs alg2: exact states 4 rounds 3 learning 36/14/82 equivalence 64/38/208"
    " suffixes [b.a.a,a.b.a]",
    "combination_lock rs wp: exact states 4 rounds 3 learning 36/16/96 equivalence 79/77/587"
    " suffixes [b.a.a,a.a.b.a]",
    "combination_lock shortest perfect: exact states 4 rounds 3 learning 37/16/86 equivalence 0/0/0"
    " suffixes [b.a,a.b.a]",
    "combination_lock shortest alg2: exact states 4 rounds 3 learning 36/14/82 equivalence 64/38/208"
    " suffixes [b.a.a,a.b.a]",
    "combination_lock shortest wp: exact states 4 rounds 3 learning 36/16/96 equivalence 79/77/587"
    " suffixes [b.a.a,a.a.b.a]",
    "combination_lock all perfect: exact states 4 rounds 2 learning 36/16/87 equivalence 0/0/0"
    " suffixes [a.b.a,b.a]",
    "combination_lock all alg2: exact states 4 rounds 2 learning 45/17/104 equivalence 45/33/181"
    " suffixes [a.b.a.a,b.a.a,a.a]",
    "combination_lock all wp: exact states 4 rounds 2 learning 45/17/104 equivalence 70/70/547"
    " suffixes [a.b.a.a,b.a.a,a.a]",
    "single_state rs perfect: exact states 1 rounds 1 learning 6/4/12 equivalence 0/0/0 suffixes []",
    "single_state rs alg2: exact states 1 rounds 1 learning 6/4/12 equivalence 4/0/0 suffixes []",
    "single_state rs wp: exact states 1 rounds 1 learning 6/4/12 equivalence 2/0/0 suffixes []",
    "single_state shortest perfect: exact states 1 rounds 1 learning 6/4/12 equivalence 0/0/0 suffixes []",
    "single_state shortest alg2: exact states 1 rounds 1 learning 6/4/12 equivalence 4/0/0 suffixes []",
    "single_state shortest wp: exact states 1 rounds 1 learning 6/4/12 equivalence 2/0/0 suffixes []",
    "single_state all perfect: exact states 1 rounds 1 learning 6/4/12 equivalence 0/0/0 suffixes []",
    "single_state all alg2: exact states 1 rounds 1 learning 6/4/12 equivalence 4/0/0 suffixes []",
    "single_state all wp: exact states 1 rounds 1 learning 6/4/12 equivalence 2/0/0 suffixes []",
    "quiet_timer rs perfect: exact states 4 rounds 1 learning 39/17/62 equivalence 0/0/0 suffixes []",
    "quiet_timer rs alg2: exact states 4 rounds 1 learning 39/17/62 equivalence 17/0/0 suffixes []",
    "quiet_timer rs wp: exact states 4 rounds 1 learning 39/17/62 equivalence 187/183/1079 suffixes []",
    "quiet_timer shortest perfect: exact states 4 rounds 1 learning 39/17/62 equivalence 0/0/0 suffixes []",
    "quiet_timer shortest alg2: exact states 4 rounds 1 learning 39/17/62 equivalence 17/0/0 suffixes []",
    "quiet_timer shortest wp: exact states 4 rounds 1 learning 39/17/62 equivalence 187/183/1079 suffixes []",
    "quiet_timer all perfect: exact states 4 rounds 1 learning 39/17/62 equivalence 0/0/0 suffixes []",
    "quiet_timer all alg2: exact states 4 rounds 1 learning 39/17/62 equivalence 17/0/0 suffixes []",
    "quiet_timer all wp: exact states 4 rounds 1 learning 39/17/62 equivalence 187/183/1079 suffixes []",
    "async_task rs perfect: exact states 6 rounds 1 learning 57/23/90 equivalence 0/0/0 suffixes []",
    "async_task rs alg2: exact states 6 rounds 1 learning 57/23/90 equivalence 23/0/0 suffixes []",
    "async_task rs wp: exact states 6 rounds 1 learning 57/23/90 equivalence 987/186/1374 suffixes []",
    "async_task shortest perfect: exact states 6 rounds 1 learning 57/23/90 equivalence 0/0/0 suffixes []",
    "async_task shortest alg2: exact states 6 rounds 1 learning 57/23/90 equivalence 23/0/0 suffixes []",
    "async_task shortest wp: exact states 6 rounds 1 learning 57/23/90 equivalence 987/186/1374 suffixes []",
    "async_task all perfect: exact states 6 rounds 1 learning 57/23/90 equivalence 0/0/0 suffixes []",
    "async_task all alg2: exact states 6 rounds 1 learning 57/23/90 equivalence 23/0/0 suffixes []",
    "async_task all wp: exact states 6 rounds 1 learning 57/23/90 equivalence 987/186/1374 suffixes []",
    "random12_3 rs perfect: exact states 12 rounds 4 learning 224/151/819 equivalence 0/0/0"
    " suffixes [i0.i0,i0.i1,i1.i2]",
    "random12_3 rs alg2: exact states 12 rounds 4 learning 222/142/770 equivalence 279/113/585"
    " suffixes [i0.i0,i0.i1,i1.i2]",
    "random12_3 shortest perfect: exact states 12 rounds 4 learning 224/151/819 equivalence 0/0/0"
    " suffixes [i0.i0,i0.i1,i1.i2]",
    "random12_3 shortest alg2: exact states 12 rounds 4 learning 222/142/770 equivalence 279/113/585"
    " suffixes [i0.i0,i0.i1,i1.i2]",
    "random12_3 all perfect: exact states 12 rounds 3 learning 296/183/1135 equivalence 0/0/0"
    " suffixes [i2.i0.i0,i0.i0,i1.i2.i0.i1,i2.i0.i1,i0.i1]",
    "random12_3 all alg2: exact states 12 rounds 3 learning 296/181/1125 equivalence 237/104/537"
    " suffixes [i2.i0.i0,i0.i0,i1.i2.i0.i1,i2.i0.i1,i0.i1]",
    "random12_7 rs perfect: exact states 12 rounds 5 learning 262/153/849 equivalence 0/0/0"
    " suffixes [i0.i0,i1.i0,i0.i1,i1.i1]",
    "random12_7 rs alg2: exact states 12 rounds 5 learning 259/113/615 equivalence 579/143/741"
    " suffixes [i0.i0,i1.i0,i0.i1,i1.i1]",
    "random12_7 shortest perfect: exact states 12 rounds 5 learning 262/153/849 equivalence 0/0/0"
    " suffixes [i0.i0,i1.i0,i0.i1,i1.i1]",
    "random12_7 shortest alg2: exact states 12 rounds 5 learning 259/113/615 equivalence 579/143/741"
    " suffixes [i0.i0,i1.i0,i0.i1,i1.i1]",
    "random12_7 all perfect: exact states 12 rounds 3 learning 333/153/975 equivalence 0/0/0"
    " suffixes [i0.i0.i0.i0,i0.i0.i0,i0.i0,i2.i1.i1.i0,i1.i1.i0,i1.i0]",
    "random12_7 all alg2: exact states 12 rounds 3 learning 333/152/970 equivalence 257/110/569"
    " suffixes [i0.i0.i0.i0,i0.i0.i0,i0.i0,i2.i1.i1.i0,i1.i1.i0,i1.i0]",
    "random40_5 rs perfect: exact states 40 rounds 8 learning 735/350/3067 equivalence 0/0/0"
    " suffixes [i0.i0,i0.i1,i1.i1,i0.i0.i0,i0.i0.i1,i1.i0.i1,i1.i0.i0]",
    "random40_5 rs alg2: exact states 40 rounds 7 learning 649/287/2643 equivalence 577/122/1021"
    " suffixes [i0.i0.i0,i0.i1.i0,i1.i0.i0,i1.i0.i1,i0.i0.i1,i1.i1]",
    "random40_5 shortest perfect: exact states 40 rounds 8 learning 735/350/3067 equivalence 0/0/0"
    " suffixes [i0.i0,i0.i1,i1.i1,i0.i0.i0,i0.i0.i1,i1.i0.i1,i1.i0.i0]",
    "random40_5 shortest alg2: exact states 40 rounds 7 learning 649/287/2643 equivalence 577/122/1021"
    " suffixes [i0.i0.i0,i0.i1.i0,i1.i0.i0,i1.i0.i1,i0.i0.i1,i1.i1]",
    "random40_5 all perfect: exact states 40 rounds 3 learning 891/350/3757 equivalence 0/0/0"
    " suffixes [i0.i1.i0.i0,i1.i0.i0,i0.i0,i1.i0.i0.i0.i1.i0.i1,i0.i0.i0.i1.i0.i1,i0.i0.i1.i0.i1,i0.i1.i0.i1,i1.i0.i1,i0.i1]",
    "random40_5 all alg2: exact states 40 rounds 2 learning 486/147/1477 equivalence 329/206/1830"
    " suffixes [i0.i1.i0.i0.i0,i1.i0.i0.i0,i0.i0.i0,i0.i0]",
};

TEST(LStarCosts, ArePinnedOnReferenceAndSeededMachines) {
    const auto lines = all_cost_lines();
    std::string all;
    for (const auto& l : lines) all += "    \"" + l + "\",\n";
    EXPECT_EQ(lines, kPinned) << "actual costs, one line per (machine, strategy, oracle):\n" << all;
    for (const auto& l : lines) EXPECT_EQ(l.find("WRONG"), std::string::npos) << l;
}

/// The DroidStar stand-ins (bench/droidstar), Rivest–Schapire with the perfect oracle and with
/// Algorithm 2 at B = 2: long counterexamples whose decompositions the cache partly knows, so the
/// choice among equally narrow known gaps matters.
std::vector<std::string> droidstar_cost_lines() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar"))
        if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> lines;
    for (const auto& file : files) {
        const MealyMachine truth = minimize(synchronous_closure(spec::load_spec(file).typestate));
        for (Eq eq : {Eq::Perfect, Eq::Alg2})
            lines.push_back(cost_line(file.stem().string(), truth, CexStrategy::RivestSchapire, eq));
    }
    return lines;
}

const std::vector<std::string> kPinnedDroidStar = {
    "AsyncTask rs perfect: exact states 6 rounds 1 learning 57/25/93 equivalence 0/0/0 suffixes []",
    "AsyncTask rs alg2: exact states 6 rounds 1 learning 57/25/93 equivalence 23/0/0 suffixes []",
    "BluetoothAdapter rs perfect: exact states 13 rounds 1 learning 330/156/777 equivalence 0/0/0"
    " suffixes []",
    "BluetoothAdapter rs alg2: exact states 13 rounds 1 learning 330/156/777 equivalence 153/0/0 suffixes []",
    "CountDownTimer rs perfect: exact states 3 rounds 1 learning 30/20/80 equivalence 0/0/0 suffixes []",
    "CountDownTimer rs alg2: exact states 3 rounds 1 learning 30/20/80 equivalence 19/0/0 suffixes []",
    "DownloadManager rs perfect: exact states 5 rounds 1 learning 48/13/45 equivalence 0/0/0 suffixes []",
    "DownloadManager rs alg2: exact states 5 rounds 1 learning 48/13/45 equivalence 13/0/0 suffixes []",
    "FileObserver rs perfect: exact states 7 rounds 1 learning 180/53/207 equivalence 0/0/0 suffixes []",
    "FileObserver rs alg2: exact states 7 rounds 1 learning 180/53/207 equivalence 53/0/0 suffixes []",
    "ImageLoader rs perfect: exact states 6 rounds 1 learning 100/54/223 equivalence 0/0/0 suffixes []",
    "ImageLoader rs alg2: exact states 6 rounds 1 learning 100/54/223 equivalence 52/0/0 suffixes []",
    "MediaCodec rs perfect: exact states 9 rounds 1 learning 584/232/1173 equivalence 0/0/0 suffixes []",
    "MediaCodec rs alg2: exact states 9 rounds 1 learning 584/232/1173 equivalence 232/0/0 suffixes []",
    "MediaPlayer rs perfect: exact states 11 rounds 1 learning 900/347/1751 equivalence 0/0/0 suffixes []",
    "MediaPlayer rs alg2: exact states 11 rounds 1 learning 900/347/1751 equivalence 345/0/0 suffixes []",
    "MediaRecorder rs perfect: exact states 9 rounds 1 learning 738/210/1088 equivalence 0/0/0 suffixes []",
    "MediaRecorder rs alg2: exact states 9 rounds 1 learning 738/210/1088 equivalence 209/0/0 suffixes []",
    "MediaScannerConnection rs perfect: exact states 5 rounds 1 learning 84/39/166 equivalence 0/0/0"
    " suffixes []",
    "MediaScannerConnection rs alg2: exact states 5 rounds 1 learning 84/39/166 equivalence 37/0/0"
    " suffixes []",
    "OkHttpCall rs perfect: exact states 7 rounds 2 learning 145/41/156 equivalence 0/0/0"
    " suffixes [enqueue.wait]",
    "OkHttpCall rs alg2: exact states 7 rounds 2 learning 145/35/135 equivalence 90/37/161"
    " suffixes [enqueue.wait]",
    "RequestQueue rs perfect: exact states 5 rounds 1 learning 84/34/119 equivalence 0/0/0 suffixes []",
    "RequestQueue rs alg2: exact states 5 rounds 1 learning 84/34/119 equivalence 34/0/0 suffixes []",
    "SQLiteOpenHelper rs perfect: exact states 9 rounds 4 learning 262/114/575 equivalence 0/0/0"
    " suffixes [wait.wait,getWritableDatabase.deleteDatabase,getWritableDatabase.wait]",
    "SQLiteOpenHelper rs alg2: exact states 9 rounds 4 learning 259/74/360 equivalence 565/148/757"
    " suffixes [wait.wait,getWritableDatabase.deleteDatabase,getWritableDatabase.wait]",
    "SpeechRecognizer rs perfect: exact states 8 rounds 1 learning 132/68/278 equivalence 0/0/0 suffixes []",
    "SpeechRecognizer rs alg2: exact states 8 rounds 1 learning 132/68/278 equivalence 64/0/0 suffixes []",
    "SpellCheckerSession rs perfect: exact states 7 rounds 1 learning 180/78/281 equivalence 0/0/0"
    " suffixes []",
    "SpellCheckerSession rs alg2: exact states 7 rounds 1 learning 180/78/281 equivalence 77/0/0 suffixes []",
    "VelocityTracker rs perfect: exact states 3 rounds 1 learning 154/73/243 equivalence 0/0/0 suffixes []",
    "VelocityTracker rs alg2: exact states 3 rounds 1 learning 154/73/243 equivalence 73/0/0 suffixes []",
};

TEST(LStarCosts, ArePinnedOnTheDroidStarStandIns) {
    const auto lines = droidstar_cost_lines();
    std::string all;
    for (const auto& l : lines) all += "    \"" + l + "\",\n";
    EXPECT_EQ(lines, kPinnedDroidStar) << "actual costs, one line per (model, oracle):\n" << all;
    EXPECT_EQ(lines.size(), 32u);
    for (const auto& l : lines) EXPECT_EQ(l.find("WRONG"), std::string::npos) << l;
}

}  // namespace
}  // namespace typestar
