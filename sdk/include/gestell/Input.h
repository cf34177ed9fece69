//===- gestell/Input.h - Reading artifact files safely --------------------===//
//
// One way to open an artifact: memory-mapped, read-only, with the checks that
// keep hostile input from reaching a parser (not a regular file, unreadable,
// too large, binary where text is expected).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_INPUT_H
#define GESTELL_INPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace gestell {

/// Largest artifact we agree to read (a real .llir of a big kernel is tens of
/// MB; anything past this is not a compiler artifact).
inline constexpr uint64_t MaxArtifactBytes = 1ull << 30;

enum class Content { Text, Binary };

/// Reads Path, a regular file, into memory (never mapped: a file that
/// shrinks while it is read cannot fault). For Content::Text the
/// file must not hold NUL bytes in its first 64 KiB: that is a binary file
/// where text was expected, reported with the offending line. The buffer
/// ends in a NUL byte past the file's last one (MemoryBuffer's null
/// terminator; a stage of a TritonParse trace too): the TTGIR lexer's scans
/// stop there without testing for the end.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openArtifact(llvm::StringRef Path, Content Kind);

/// Whether files A and B, regular files of at most MaxArtifactBytes, hold
/// the same bytes: the sizes first, then (unless they are one file under
/// two names) a chunk of each at a time, to the first difference (false
/// when either cannot be read: its own read reports that).
bool sameArtifactBytes(llvm::StringRef A, llvm::StringRef B);

/// 1-based line and column of Offset in Buffer (columns count bytes).
struct LineCol {
  unsigned Line = 0;
  unsigned Column = 0;
};
LineCol lineColOf(llvm::StringRef Buffer, size_t Offset);

/// Path with every link resolved (the real path), or "" when it does not
/// exist or cannot be resolved.
std::string realPath(llvm::StringRef Path);

/// Whether Path is Folder or lies under it; both already real paths.
bool pathIsWithin(llvm::StringRef Path, llvm::StringRef Folder);

/// Deepest nesting of JSON arrays and objects accepted (Triton's metadata
/// nests three deep). llvm::json::parse recurses once per `[` or `{`, so a
/// file nested tens of thousands deep would run it off the stack.
inline constexpr unsigned MaxJsonDepth = 256;

/// Parses JSON Text, read from Path, rejecting nesting deeper than
/// MaxJsonDepth before parsing. Errors are InputErrors at Path:line:col:
/// "invalid <What>: <what the parser expected>", or nesting too deep.
llvm::Expected<llvm::json::Value> parseJsonInput(llvm::StringRef Text,
                                                 llvm::StringRef Path,
                                                 llvm::StringRef What = "JSON");

} // namespace gestell

#endif
