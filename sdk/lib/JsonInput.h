//===- JsonInput.h - JSON from a file, with its nesting bounded -----------===//
//
// Internal to the SDK. llvm::json::parse recurses once per `[` or `{`: a
// file nested tens of thousands deep runs it off the stack. Every JSON the
// SDK reads from disk goes through parseJsonInput, which rejects nesting
// deeper than MaxJsonDepth before parsing, and reports both that and a
// syntax error at the file, line and column, like every other reader.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_JSONINPUT_H
#define GESTELL_LIB_JSONINPUT_H

#include "gestell/Bundle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace gestell {

/// Deepest nesting of arrays and objects accepted (Triton's metadata nests
/// three deep).
inline constexpr unsigned MaxJsonDepth = 256;

/// Parses Text, read from Path. Errors are InputErrors at Path:line:col:
/// "invalid <What>: <what the parser expected>", or nesting too deep.
llvm::Expected<llvm::json::Value> parseJsonInput(llvm::StringRef Text,
                                                 llvm::StringRef Path,
                                                 llvm::StringRef What = "JSON");

/// The fields of Triton's metadata (a kernel's .json, a trace's
/// payload.metadata) that gestell uses; what parseKernelMetadata reads.
KernelMetadata kernelMetadataFromJson(const llvm::json::Object &O);

} // namespace gestell

#endif
