// JSON inputs and outputs that broke perfpred under fuzzing: deep nesting (a stack overflow), long
// values repeated into errors, and invalid UTF-8 in strings written as JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "../error_of.hpp"

using namespace perfpred;

TEST(JsonFile, DeepNestingIsRefusedNamingTheLimit) {
  for (int depth : {200, 100000}) {
    std::istringstream in("{\"a\": " + std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']') + "}");
    try {
      parse_json(in, "deep.json");
      ADD_FAILURE() << "depth " << depth << " parsed";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("deep.json: nested deeper than 128", 0), 0u) << msg;
      EXPECT_LT(msg.size(), 300u);
    }
  }
  std::istringstream ok("{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}");
  EXPECT_NO_THROW(parse_json(ok, "ok.json"));
}

TEST(JsonFile, ReadFileNamesTheFile) {
  const auto p = std::filesystem::temp_directory_path() / "perfpred_test_deep.json";
  {
    std::ofstream f(p);
    f << std::string(20000, '[') << std::string(20000, ']');
  }
  EXPECT_THROW(
      {
        try {
          read_json_file(p, "GPU spec file");
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos);
          EXPECT_LT(std::string(e.what()).size(), 400u);
          throw;
        }
      },
      InputError);
  std::filesystem::remove(p);
}

TEST(JsonFile, ExcerptIsShortAndDumpSurvivesInvalidUtf8) {
  nlohmann::json big = nlohmann::json::array();
  for (int i = 0; i < 10000; ++i) big.push_back(i);
  const std::string e = json_excerpt(big);
  EXPECT_LT(e.size(), 100u);
  nlohmann::json bad = {{"name", std::string("a\xff\xfe") + "b"}};
  EXPECT_THROW((void)bad.dump(), nlohmann::json::type_error);
  const std::string out = dump_json(bad);
  EXPECT_NE(out.find("a\xEF\xBF\xBD\xEF\xBF\xBD" "b"), std::string::npos) << out;
}

TEST(JsonFile, OptionalFieldsOfTheWrongTypeNameTheFileAndTheField) {
  // nlohmann's value("name", default) throws its own type_error when the key holds another type; a plan whose
  // sweep named itself with an object ended as an internal error (fuzz_json_files). These name file and field.
  const nlohmann::json j = nlohmann::json::parse(
      R"({"name": {"batch": [1, 16]}, "op": "conv", "n": 3, "big": 18446744073709551615, "f": 1.5,
          "flag": "yes", "ok": true, "none": null})");
  const auto err = [](auto f) { return test::error_of(f); };
  EXPECT_EQ(json_string(j, "op", "x", "p.json"), "conv");
  EXPECT_EQ(json_string(j, "missing", "dflt", "p.json"), "dflt");
  EXPECT_EQ(json_string(j, "none", "dflt", "p.json"), "dflt");  // null reads as absent
  EXPECT_EQ(err([&] { (void)json_string(j, "name", "", "p.json: sweeps[0]"); }),
            "p.json: sweeps[0]: field 'name' must be a string (got object {\"batch\":[1,16]})");
  EXPECT_EQ(json_int(j, "n", -1, "p.json"), 3);
  EXPECT_EQ(json_int(j, "missing", -1, "p.json"), -1);
  EXPECT_NE(err([&] { (void)json_int(j, "f", 0, "p.json"); }).find("field 'f' must be an integer (got number 1.5)"),
            std::string::npos);
  EXPECT_NE(err([&] { (void)json_int(j, "big", 0, "p.json"); }).find("field 'big' must be an integer of at most"),
            std::string::npos);
  EXPECT_TRUE(json_bool(j, "ok", false, "p.json"));
  EXPECT_FALSE(json_bool(j, "missing", false, "p.json"));
  EXPECT_EQ(err([&] { (void)json_bool(j, "flag", false, "p.json"); }),
            "p.json: field 'flag' must be true or false (got string \"yes\")");
  // Not an object at all: every field is absent.
  EXPECT_EQ(json_string(nlohmann::json::array(), "name", "d", "p.json"), "d");
}
