// Diagnostics stay readable and bounded for any input: long lines are cut to
// a window with the caret still under the right byte, controls never reach
// the terminal, and each file shows at most the error limit, streamed.
#include <gtest/gtest.h>

#include <sstream>

#include "support/diagnostics.h"
#include "support/source_excerpt.h"

namespace tsr {
namespace {

TEST(SourceExcerpt, ShortLineIsShownWhole) {
  EXPECT_EQ(render_source_excerpt("dtype: f8", 8), "dtype: f8\n       ^\n");
  EXPECT_EQ(render_source_excerpt("dtype: f8", 0), "dtype: f8\n");
}

TEST(SourceExcerpt, LongLineIsAWindowAroundTheColumn) {
  // 'x' at byte 5000 of a 10,000-byte line of 'a's.
  std::string line(10000, 'a');
  line[4999] = 'x';
  const std::string out = render_source_excerpt(line, 5000);
  const std::string window = line.substr(5000 - 1 - kMaxEchoedLineBytes / 2, kMaxEchoedLineBytes);
  EXPECT_EQ(out, "..." + window + "...\n" + std::string(3 + kMaxEchoedLineBytes / 2, ' ') + "^\n");
  EXPECT_EQ(window[kMaxEchoedLineBytes / 2], 'x');
}

TEST(SourceExcerpt, WindowAtEitherEndOfALongLine) {
  const std::string line = "ops: [" + std::string(400, 'z') + "]";
  const std::string head = render_source_excerpt(line, 6);
  EXPECT_EQ(head, line.substr(0, kMaxEchoedLineBytes) + "...\n     ^\n");
  const std::string tail = render_source_excerpt(line, static_cast<int>(line.size()));
  EXPECT_EQ(tail, "..." + line.substr(line.size() - kMaxEchoedLineBytes) + "\n" +
                      std::string(3 + kMaxEchoedLineBytes - 1, ' ') + "^\n");
}

TEST(SourceExcerpt, CaretCountsCharactersNotBytesAfterUtf8) {
  // yaml-cpp columns are bytes: 'zz' is at byte column 17, the 13th character.
  const std::string line = "ops: [\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9, zz]";
  EXPECT_EQ(render_source_excerpt(line, 17), line + "\n" + std::string(12, ' ') + "^\n");
}

TEST(SourceExcerpt, ControlCharactersPrintAsQuestionMarksTabsStay) {
  EXPECT_EQ(render_source_excerpt("a\x1b[2Jb\tc: x", 11), "a?[2Jb\tc: x\n      \t   ^\n");
}

TEST(PrintableMessage, EscapesControlsAndShortensTheMiddle) {
  EXPECT_EQ(printable_message("kernel name 'a\nb\x1b' is bad\t!"), "kernel name 'a\\nb\\x1b' is bad\\t!");
  const std::string huge = "unknown key '" + std::string(1 << 20, 'k') + "' in spec (allowed: a, b)";
  const std::string shown = printable_message(huge);
  EXPECT_LE(shown.size(), kMaxMessageBytes);
  EXPECT_EQ(shown.rfind("unknown key 'kkk", 0), 0u);
  EXPECT_NE(shown.find("kkk...kkk"), std::string::npos);
  EXPECT_EQ(shown.substr(shown.size() - 26), "k' in spec (allowed: a, b)");
}

std::string diagnostics_for(size_t errors, size_t limit) {
  DiagnosticEngine diag(nullptr, limit);
  diag.add_source("m.yaml", "line one\nline two\n");
  for (size_t i = errors; i > 0; --i)   // reported out of order on purpose
    diag.error(SourceLocation{"m.yaml", 2, static_cast<int>(i)}, "error " + std::to_string(i));
  return diag.render();
}

TEST(ErrorLimit, ShowsTheFirstErrorsInSourceOrderThenOneStopLine) {
  const std::string out = diagnostics_for(5000, 3);
  EXPECT_EQ(out,
            "m.yaml:2:1: error: error 1\nline two\n^\n"
            "m.yaml:2:2: error: error 2\nline two\n ^\n"
            "m.yaml:2:3: error: error 3\nline two\n  ^\n"
            "m.yaml: error: too many errors emitted, stopping now (--error-limit 0 shows all)\n");
}

TEST(ErrorLimit, ExactlyTheLimitHasNoStopLine) {
  const std::string out = diagnostics_for(3, 3);
  EXPECT_EQ(out.find("too many errors"), std::string::npos);
  EXPECT_NE(out.find("error 3"), std::string::npos);
}

TEST(ErrorLimit, ZeroMeansEveryError) {
  const std::string out = diagnostics_for(500, 0);
  EXPECT_NE(out.find("m.yaml:2:500: error: error 500\n"), std::string::npos);
  EXPECT_EQ(out.find("too many errors"), std::string::npos);
}

TEST(ErrorLimit, CountsEveryErrorEvenThoseNotShown) {
  DiagnosticEngine diag(nullptr, 2);
  for (int i = 0; i < 10; ++i) diag.error(SourceLocation{"a.yaml", 1, i + 1}, "e");
  EXPECT_EQ(diag.error_count(), 10u);
  EXPECT_TRUE(diag.has_errors());
}

TEST(ErrorLimit, AppliesPerFileAcrossFlushes) {
  std::ostringstream sink;
  DiagnosticEngine diag(&sink, 1);
  diag.error(SourceLocation{"a.yaml", 1, 1}, "first a");
  diag.flush();
  diag.error(SourceLocation{"b.yaml", 1, 1}, "first b");
  diag.error(SourceLocation{"a.yaml", 2, 1}, "second a");
  diag.flush();
  EXPECT_EQ(sink.str(),
            "a.yaml:1:1: error: first a\n"
            "b.yaml:1:1: error: first b\n"
            "a.yaml: error: too many errors emitted, stopping now (--error-limit 0 shows all)\n");
  EXPECT_EQ(diag.render(), "");   // streamed, not kept
}

TEST(ErrorLimit, ManyErrorsOnOneLongLineStayFastAndSmall) {
  // The shape of the report: thousands of errors on one huge line.
  const std::string line = "ops: [" + std::string(1 << 20, 'z') + "]";
  DiagnosticEngine diag;
  diag.add_source("big.yaml", line);
  for (int i = 0; i < 100000; ++i) diag.error(SourceLocation{"big.yaml", 1, 7 + i}, "unknown op 'zz'");
  const std::string out = diag.render();
  EXPECT_LT(out.size(), (kDefaultErrorLimit + 1) * (2 * kMaxEchoedLineBytes + 100));
}

}  // namespace
}  // namespace tsr
