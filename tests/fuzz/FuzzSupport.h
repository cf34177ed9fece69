//===- FuzzSupport.h - What every fuzz target checks ----------------------===//
//
// A fuzz target feeds one input to one reader and checks what the reader
// promises: it returns a result or an error, never crashes; an error is an
// InputError naming the file and, for text, a line and column inside the
// text; printed forms that promise to read back do. A broken promise
// aborts with a message, which libFuzzer (and the replay tests) report as a
// failure with the input that caused it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TESTS_FUZZ_FUZZSUPPORT_H
#define GESTELL_TESTS_FUZZ_FUZZSUPPORT_H

#include "gestell/InstructionCounts.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gestell::fuzz {

/// The input as text (not NUL-terminated).
inline llvm::StringRef asText(const uint8_t *Data, size_t Size) {
  return llvm::StringRef(reinterpret_cast<const char *>(Data), Size);
}

/// Prints "fuzz: <What>" and aborts: a promise does not hold.
[[noreturn]] void fail(const llvm::Twine &What);

/// Where an error may point.
enum class Position {
  Unchecked,  ///< anywhere (the reader reads a text made from the input)
  FileOrText, ///< the file as a whole, or a line and column inside Text
  InText,     ///< a line and column inside Text
};

/// Consumes E, which must be InputErrors only, each naming a path that ends
/// with PathSuffix and pointing where Where says: a line (and column, when
/// given) inside Text means one up to just past its end.
void expectInputError(llvm::Error E, llvm::StringRef PathSuffix,
                      llvm::StringRef Text, Position Where);

/// Whether Line:Column (1-based; Column 0 = unknown) lies inside Text or
/// just past its end.
bool insideText(llvm::StringRef Text, unsigned Line, unsigned Column);

/// Writes the input to <a folder of this process>/Name and returns its path
/// (for readers that only read files).
std::string writeInputFile(llvm::StringRef Name, llvm::StringRef Contents);

/// What counting promises of C: its opcodes strictly ascending, each read
/// back by lookup() as counted, their totals summing to every instruction
/// (texts hold any byte the input had, NUL included).
void expectCountsReadBack(const StageCounts &C);

} // namespace gestell::fuzz

#endif
