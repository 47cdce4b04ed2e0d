// ReasonNotes: a long tail that two or more table reasons share is printed
// once as a numbered note; short tails, unshared tails and the text before
// the shared tail stay in the rows.
#include <gtest/gtest.h>

#include <string>

#include "driver/reason_notes.h"

namespace tsr {
namespace {

const std::string kManifest = "the NPU runs only: bf16_add_1024: elementwise ops [add], dtype bf16, shape {N: 1024}; "
                              "ABI in0: bf16[1024], in1: bf16[1024], out: bf16[1024]";

TEST(ReasonNotes, ASharedLongTailBecomesOneNoteTheRowsReferTo) {
  const std::string a = "kernel 'a' is not in the xdna manifest (dtype f32 is not bf16); " + kManifest;
  const std::string b = "kernel 'b' is not in the xdna manifest (family rowwise); " + kManifest;
  const std::string other = "no CUDA driver (libcuda.so.1 not found)";
  ReasonNotes notes({a, other, b});
  EXPECT_EQ(notes.render(), "");   // nothing used yet
  EXPECT_EQ(notes.shorten(a), "kernel 'a' is not in the xdna manifest (dtype f32 is not bf16); see [1]");
  EXPECT_EQ(notes.shorten(other), other);
  EXPECT_EQ(notes.shorten(b), "kernel 'b' is not in the xdna manifest (family rowwise); see [1]");
  // The earliest shared tail is taken, not the manifest's own "; ABI ..." clause.
  EXPECT_EQ(notes.render(), "[1] " + kManifest + "\n");
}

TEST(ReasonNotes, UnsharedOrShortTailsStay) {
  const std::string once = "kernel 'a' is not in the xdna manifest; " + kManifest;
  const std::string short_tail = "trial 0 failed; index 3";
  ReasonNotes notes({once, short_tail, short_tail});
  EXPECT_EQ(notes.shorten(once), once);
  EXPECT_EQ(notes.shorten(short_tail), short_tail);
  EXPECT_EQ(notes.render(), "");
}

TEST(ReasonNotes, NotesAreNumberedInTheOrderRowsFirstUseThem) {
  const std::string tail1 = std::string(ReasonNotes::kMinLength, 'x');
  const std::string tail2 = std::string(ReasonNotes::kMinLength, 'y');
  ReasonNotes notes({"a; " + tail2, "b; " + tail1, "c; " + tail2, "d; " + tail1});
  EXPECT_EQ(notes.shorten("b; " + tail1), "b; see [1]");
  EXPECT_EQ(notes.shorten("a; " + tail2), "a; see [2]");
  EXPECT_EQ(notes.shorten("d; " + tail1), "d; see [1]");
  EXPECT_EQ(notes.render(), "[1] " + tail1 + "\n[2] " + tail2 + "\n");
}

}  // namespace
}  // namespace tsr
