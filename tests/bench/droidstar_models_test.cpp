// Checks the 16 DroidStar stand-in models in bench/droidstar against DroidStar Table 1: each spec
// loads, its typestate has Table 1's number of states, its synchronous closure is minimal with every
// state reachable (one more state for the error sink when some callin is refused), and its
// distinguisher bound is the one Table 1 reports as needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

struct Table1Row {
    const char* name;    ///< class name = file name without .yaml
    std::size_t states;  ///< Table 1 "states": typestate states, error sink not counted
    bool has_sink;       ///< whether some callin (or wait) is refused, adding the `__err` sink
    std::size_t needed;  ///< Table 1 "BDist (needed)"
};

constexpr Table1Row kTable1[] = {
    {"AsyncTask", 5, true, 1},
    {"BluetoothAdapter", 12, true, 1},
    {"CountDownTimer", 3, false, 1},
    {"DownloadManager", 4, true, 1},
    {"FileObserver", 6, true, 1},
    {"ImageLoader", 5, true, 1},
    {"MediaCodec", 8, true, 1},
    {"MediaPlayer", 10, true, 1},
    {"MediaRecorder", 8, true, 1},
    {"MediaScannerConnection", 4, true, 1},
    {"OkHttpCall", 6, true, 2},
    {"RequestQueue", 4, true, 1},
    {"SpeechRecognizer", 7, true, 1},
    {"SpellCheckerSession", 6, true, 1},
    {"SQLiteOpenHelper", 8, true, 2},
    {"VelocityTracker", 2, true, 1},
};

const std::filesystem::path& models_dir() {
    static const std::filesystem::path dir = std::filesystem::path(TYPESTAR_SOURCE_DIR) / "bench" / "droidstar";
    return dir;
}

class DroidStarModel : public testing::TestWithParam<Table1Row> {};

TEST_P(DroidStarModel, MatchesTable1) {
    const Table1Row& row = GetParam();
    const spec::Spec s = spec::load_spec(models_dir() / (std::string(row.name) + ".yaml"));
    EXPECT_EQ(s.typestate.name, row.name);
    EXPECT_EQ(s.typestate.states.size(), row.states);
    EXPECT_EQ(s.bounds.distinguisher, 2U) << "DroidStar ran every class with B = 2";

    const MealyMachine closure = synchronous_closure(s.typestate);
    const std::size_t mealy_states = row.states + (row.has_sink ? 1 : 0);
    EXPECT_EQ(closure.num_states(), mealy_states);
    EXPECT_EQ(minimize(closure).num_states(), mealy_states) << "the model is not minimal";
    for (StateId q = 0; q < closure.num_states(); ++q)
        EXPECT_TRUE(access_sequences(closure)[q].has_value()) << "unreachable: " << closure.state_name(q);
    EXPECT_EQ(distinguisher_bound(closure), row.needed);
}

INSTANTIATE_TEST_SUITE_P(Table1, DroidStarModel, testing::ValuesIn(kTable1),
                         [](const testing::TestParamInfo<Table1Row>& param_info) {
                             return std::string(param_info.param.name);
                         });

TEST(DroidStarModels, DirectoryHoldsExactlyTheSixteenClasses) {
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(models_dir()))
        if (entry.path().extension() == ".yaml") files.insert(entry.path().stem().string());
    std::set<std::string> expected;
    for (const auto& row : kTable1) expected.insert(row.name);
    EXPECT_EQ(files, expected);
}

TEST(DroidStarModels, OnlySQLiteOpenHelperAndOkHttpCallNeedBoundTwo) {
    // DroidStar §6.1, Question 2. Checked on the closures, not on the table above.
    std::set<std::string> need_two;
    for (const auto& row : kTable1) {
        const spec::Spec s = spec::load_spec(models_dir() / (std::string(row.name) + ".yaml"));
        const auto bound = distinguisher_bound(synchronous_closure(s.typestate));
        ASSERT_TRUE(bound.has_value()) << row.name;
        if (*bound >= 2) need_two.insert(row.name);
    }
    EXPECT_EQ(need_two, (std::set<std::string>{"OkHttpCall", "SQLiteOpenHelper"}));
}

}  // namespace
}  // namespace typestar
