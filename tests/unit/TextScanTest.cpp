//===- TextScanTest.cpp - The readers' text scanners ----------------------===//
//
// scan::containsAny must say what StringRef::contains says for each word,
// wherever the word lies relative to its 32-byte blocks and the end; the
// byte scanners (findOpcodeEnd, findAnyOf3 with and without line counts,
// findStatementBreak) and checkText must say what a byte-by-byte loop says,
// wherever the byte they stop at lies relative to their 16- and 64-byte blocks.
//
//===----------------------------------------------------------------------===//
#include "readers/TextScan.h"
#include "readers/TextScanSimd.h"

#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace gestell;
using llvm::StringRef;

namespace {

bool reference(StringRef Text, llvm::ArrayRef<StringRef> Words) {
  for (StringRef W : Words)
    if (Text.contains(W))
      return true;
  return false;
}

TEST(TextScan, ContainsAnyFindsAWordAtEveryOffset) {
  const StringRef Words[] = {"tt.descriptor_", "ttng.async_tma_"};
  for (size_t Len : {0, 1, 14, 15, 31, 45, 46, 47, 64, 100, 200})
    for (size_t At = 0; At <= Len; ++At)
      for (StringRef W : Words) {
        // Filler that holds each word's first and last byte, so candidates
        // are found and rejected around the real match.
        std::string Text(Len, 't');
        for (size_t K = 1; K < Len; K += 3)
          Text[K] = '_';
        if (At + W.size() <= Len)
          Text.replace(At, W.size(), W.str());
        SCOPED_TRACE(Text);
        EXPECT_EQ(scan::containsAny(Text, Words), reference(Text, Words));
        EXPECT_EQ(scan::containsAny(Text, {W}), reference(Text, {W}));
      }
}

TEST(TextScan, ContainsAnyAgreesWithContainsOnRandomText) {
  std::mt19937 Rng(7);
  const std::string Alphabet = "t._l";
  const StringRef Words[] = {".l", "t.t", "_t_", "t", "l._t.l_"};
  for (int Round = 0; Round < 2000; ++Round) {
    std::string Text(Rng() % 120, ' ');
    for (char &C : Text)
      C = Alphabet[Rng() % Alphabet.size()];
    for (size_t First = 0; First < std::size(Words); ++First)
      for (size_t Count = 1; Count <= 2 && First + Count <= std::size(Words);
           ++Count) {
        llvm::ArrayRef<StringRef> Some(Words + First, Count);
        ASSERT_EQ(scan::containsAny(Text, Some), reference(Text, Some))
            << Text << " words from " << First << " x" << Count;
      }
  }
}

TEST(TextScan, ContainsAnyOfNoWordsOrAnEmptyWord) {
  EXPECT_FALSE(scan::containsAny("abc", {}));
  EXPECT_TRUE(scan::containsAny("", {""}));
  EXPECT_TRUE(scan::containsAny("abc", {"zz", ""}));
  // More words than one pass takes: each is still looked for.
  EXPECT_TRUE(scan::containsAny(std::string(100, 'a') + "q",
                                {"x", "y", "z", "w", "q"}));
  EXPECT_FALSE(
      scan::containsAny(std::string(100, 'a'), {"x", "y", "z", "w", "q"}));
}

const char *opcodeEndByBytes(const char *P, const char *End) {
  while (P < End && static_cast<unsigned char>(*P) > 0x20 && *P != ';' &&
         *P != '{')
    ++P;
  return P;
}
const char *statementBreakByBytes(const char *P, const char *End) {
  while (P < End && *P != ';' && *P != '\n' && *P != '/')
    ++P;
  return P;
}

TEST(TextScan, PtxScannersStopWhereAByteLoopStops) {
  std::mt19937 Rng(11);
  // Mostly opcode and operand text; the stops and UTF-8 bytes now and then.
  const std::string Common = "abcdefgh.%r0123456789,[]:";
  const std::string Rare = " \t\n;{}/\"\\\x01\xc3\xa9\x7f";
  for (int Round = 0; Round < 5000; ++Round) {
    std::string Text(Rng() % 80, ' ');
    for (char &C : Text)
      C = Rng() % 12 ? Common[Rng() % Common.size()]
                     : Rare[Rng() % Rare.size()];
    const char *B = Text.data(), *E = B + Text.size();
    for (size_t From = 0; From <= Text.size(); ++From) {
      bool Colon = false;
      const char *OpEnd = scan::findOpcodeEnd(B + From, E, Colon);
      ASSERT_EQ(OpEnd - B, opcodeEndByBytes(B + From, E) - B)
          << Text << " from " << From;
      ASSERT_EQ(Colon, StringRef(B + From, OpEnd - (B + From)).contains(':'))
          << Text << " from " << From;
      ASSERT_EQ(scan::findStatementBreak(B + From, E) - B,
                statementBreakByBytes(B + From, E) - B)
          << Text << " from " << From;
      const char *Blank = B + From;
      while (Blank < E && (*Blank == ' ' || *Blank == '\t' || *Blank == '\r'))
        ++Blank;
      ASSERT_EQ(scan::skipBlanks(B + From, E), Blank)
          << Text << " from " << From;
      // The TTGIR lexer's string scan: to a quote, a backslash or a line end.
      const char *Q = B + From;
      while (Q < E && *Q != '"' && *Q != '\\' && *Q != '\n')
        ++Q;
      ASSERT_EQ(scan::findAnyOf3(B + From, E, '"', '\\', '\n') - B, Q - B)
          << Text << " from " << From;
      // The PTX's .section skip: to '/', '{' or '}', counting lines.
      uint32_t Lines = 0, LinesByBytes = 0;
      const char *Start = nullptr, *StartByBytes = nullptr;
      const char *R = B + From;
      for (; R < E && *R != '/' && *R != '{' && *R != '}'; ++R)
        if (*R == '\n') {
          ++LinesByBytes;
          StartByBytes = R + 1;
        }
      ASSERT_EQ(scan::findAnyOf3CountingLines(B + From, E, '/', '{', '}', Lines,
                                              Start),
                R)
          << Text << " from " << From;
      ASSERT_EQ(Lines, LinesByBytes) << Text << " from " << From;
      ASSERT_EQ(Start, StartByBytes) << Text << " from " << From;
    }
  }
}

TEST(TextScan, BlankRunsAndHexDigits) {
  // Runs of blanks longer than a scan turn, ending at every offset.
  const char Blanks[] = {' ', '\t', '\r'};
  for (size_t N = 0; N <= 40; ++N)
    for (char Stop : {'x', '\n', ';'}) {
      std::string Text;
      for (size_t K = 0; K < N; ++K)
        Text += Blanks[K % 3 == 2 ? (K / 3) % 3 : 0];
      Text += Stop;
      const char *B = Text.data(), *E = B + Text.size();
      for (size_t From = 0; From <= N; ++From)
        ASSERT_EQ(scan::skipBlanks(B + From, E), B + N) << N << " " << From;
      ASSERT_EQ(scan::skipBlanks(B, B + N), B + N) << N; // to the end
    }
  for (unsigned C = 0; C < 256; ++C) {
    int Want = C >= '0' && C <= '9'   ? int(C - '0')
               : C >= 'a' && C <= 'f' ? int(C - 'a' + 10)
               : C >= 'A' && C <= 'F' ? int(C - 'A' + 10)
                                      : -1;
    ASSERT_EQ(scan::hexValue(char(C)), Want) << C;
  }
}

TEST(TextScan, CheckTextCountsAndStopsAtEveryOffset) {
  for (size_t Len : {0, 1, 15, 16, 63, 64, 65, 127, 128, 200, 64 * 63 + 5,
                     64 * 64 + 70, 64 * 127 + 5, 64 * 128 + 70}) {
    // ';' every seventh byte, and a line every 50.
    std::string Text(Len, 'x');
    size_t Semis = 0;
    for (size_t K = 0; K < Len; ++K) {
      if (K % 7 == 3) {
        Text[K] = ';';
        ++Semis;
      } else if (K % 50 == 49) {
        Text[K] = '\n';
      }
    }
    size_t Count = 0;
    ASSERT_FALSE(bool(scan::checkText(Text, "t", ';', Count)));
    EXPECT_EQ(Count, Semis) << Len;
    // Valid UTF-8 anywhere is counted past; a NUL anywhere is an error at
    // its line and column.
    for (size_t At = 0; At + 2 <= Len; At += 1 + Len / 40) {
      std::string Utf = Text;
      Utf.replace(At, 2, "\xc3\xa9");
      size_t N = 0;
      ASSERT_FALSE(bool(scan::checkText(Utf, "t", ';', N)));
      EXPECT_EQ(N, Semis - (Text[At] == ';') - (Text[At + 1] == ';'));
      std::string Nul = Text;
      Nul[At] = 0;
      size_t Line = 1, Col = 1;
      for (size_t K = 0; K < At; ++K)
        Text[K] == '\n' ? (++Line, Col = 1) : ++Col;
      EXPECT_EQ(toString(scan::checkText(Nul, "t", ';', N)),
                "t:" + std::to_string(Line) + ":" + std::to_string(Col) +
                    ": binary data (NUL byte) where text was expected")
          << Len << " at " << At;
    }
  }
}

TEST(TextScan, CheckTextCountsEveryByteOfADenseText) {
  // Every byte the counted one: the per-byte counters of the vector passes
  // are summed before they wrap (SSE2 after 63 blocks, AVX2 after 127).
  for (size_t Len : {64 * 63, 64 * 64, 64 * 127, 64 * 128, 64 * 300 + 9}) {
    std::string Text(Len, ';');
    size_t Count = 0;
    ASSERT_FALSE(bool(scan::checkText(Text, "t", ';', Count)));
    EXPECT_EQ(Count, Len);
  }
}

#if defined(__SSE2__) && GESTELL_HAVE_AVX2
// The SSE2 and AVX2 passes stop, count and find alike: the other tests
// reach only the one this CPU runs.
TEST(TextScan, Sse2AndAvx2PassesAgree) {
  if (!scan::hasAvx2())
    GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937 Rng(7);
  const StringRef One[] = {"tt.descriptor_"};
  const StringRef Two[] = {"tt.descriptor_", "ttng.async_tma_"};
  for (int Round = 0; Round < 400; ++Round) {
    size_t Len = Rng() % 9000;
    std::string Text(Len, 'a');
    for (char &C : Text) {
      unsigned R = Rng() % 1000;
      C = R < 3     ? '\0'
          : R < 6   ? char(0xc3)
          : R < 100 ? ';'
          : R < 200 ? 't'
                    : 'a' + R % 20;
    }
    if (Len > 40 && Round % 3 == 0)
      Text.replace(Rng() % (Len - 20), 14, "tt.descriptor_");
    for (size_t From : {size_t(0), size_t(Rng() % (Len + 1))}) {
      size_t I1 = From, I2 = From, M1 = 0, M2 = 0;
      size_t S1 = scan::plainBlocksSse2(Text.data(), Len, I1, ';', M1);
      size_t S2 = scan::plainBlocksAvx2(Text.data(), Len, I2, ';', M2);
      EXPECT_EQ(S1, S2) << Round;
      EXPECT_EQ(I1, I2) << Round;
      EXPECT_EQ(M1, M2) << Round;
      size_t J1 = From, J2 = From;
      EXPECT_EQ(scan::findWordsSse2<1>(Text, One, J1),
                scan::findOneWordAvx2(Text, One, J2))
          << Round;
      EXPECT_EQ(J1, J2) << Round;
      J1 = J2 = From;
      EXPECT_EQ(scan::findWordsSse2<2>(Text, Two, J1),
                scan::findTwoWordsAvx2(Text, Two, J2))
          << Round;
      EXPECT_EQ(J1, J2) << Round;
    }
  }
}
#endif

} // namespace
