//===- ReportTest.cpp - What the reporters share
//---------------------------===//
//
// The file URIs SARIF and the HTML report give every artifact: RFC 3986
// keeps unreserved bytes, '/', and the sub-delimiters ':' and '@' a path
// segment may hold; every other byte is percent-encoded, one UTF-8 byte at
// a time, in upper-case hex.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include <gtest/gtest.h>

#include <cctype>

using namespace gestell::driver;

namespace {

TEST(ReportUri, AbsolutePathsAreFileUris) {
  EXPECT_EQ(pathToUri("/cache/ABC_12/k.ptx"), "file:///cache/ABC_12/k.ptx");
  EXPECT_EQ(pathToUri("rel/k.ptx"), "rel/k.ptx");
  EXPECT_EQ(pathToUri(""), "");
}

TEST(ReportUri, EveryByteIsKeptOrEncoded) {
  // Each byte in a relative path: kept exactly when RFC 3986 allows it in
  // a path, else %XX.
  const std::string Kept = "abcxyzABCXYZ0189-._~/!$&'()*+,;=:@";
  for (unsigned C = 1; C < 256; ++C) {
    std::string Byte(1, char(C));
    std::string Want = Kept.find(char(C)) != std::string::npos ||
                               (C < 128 && std::isalnum(int(C)))
                           ? Byte
                           : std::string{'%', "0123456789ABCDEF"[C >> 4],
                                         "0123456789ABCDEF"[C & 15]};
    EXPECT_EQ(pathToUri("x" + Byte), "x" + Want) << C;
  }
  EXPECT_EQ(pathToUri("/a b/\xc3\xa9#?%.py"),
            "file:///a%20b/%C3%A9%23%3F%25.py");
}

} // namespace

// stringAttribute writes what json::OStream::attribute writes for the same
// string: every byte value alone and in text, escapes, UTF-8 kept, and
// invalid UTF-8 mended the same way; in an indented object among others.
TEST(ReportJson, StringAttributeWritesWhatAttributeWrites) {
  std::vector<std::string> Texts = {"",
                                    "plain text",
                                    "a \"quoted\" \\ back\\slash",
                                    "tab\tnew\nline\rreturn",
                                    "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82",
                                    "bad \xff byte",
                                    "cut \xe2\x86"};
  for (unsigned C = 0; C < 256; ++C) {
    Texts.push_back(std::string(1, char(C)));
    Texts.push_back("x" + std::string(1, char(C)) + "y");
  }
  for (const std::string &T : Texts) {
    auto Write = [&](bool Ours) {
      std::string Out;
      llvm::raw_string_ostream OS(Out);
      llvm::json::OStream J(OS, 2);
      J.object([&] {
        J.attribute("before", 1);
        if (Ours)
          gestell::driver::stringAttribute(J, "text", T);
        else
          J.attribute("text", T);
        J.attribute("after", "z");
      });
      return Out;
    };
    EXPECT_EQ(Write(true), Write(false)) << llvm::json::fixUTF8(T);
  }
}
