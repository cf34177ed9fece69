//===- JsonInput.h - Triton's metadata from JSON --------------------------===//
//
// Internal to the SDK. A kernel's metadata comes as JSON from two places: a
// cache's <name>.json and a TritonParse trace's payload.metadata. Both are
// parsed with parseJsonInput (gestell/Input.h: nesting bounded, errors
// located) and read into a KernelMetadata here.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_JSONINPUT_H
#define GESTELL_LIB_JSONINPUT_H

#include "gestell/Bundle.h"
#include "gestell/Input.h"

#include "llvm/Support/JSON.h"

#include <optional>

namespace gestell {

/// The fields of Triton's metadata (a kernel's .json, a trace's
/// payload.metadata) that gestell uses; what parseKernelMetadata reads.
KernelMetadata kernelMetadataFromJson(const llvm::json::Object &O);

/// The members of a .json's top-level object that kernelMetadataFromJson
/// reads, each parsed by json::parse, found in one pass that does not build
/// the rest (MetadataScan.cpp); std::nullopt when the text is outside the
/// plain subset of JSON that pass reads or is not an object: the caller
/// then parses it whole (parseJsonInput), which locates any error.
std::optional<llvm::json::Object> scanMetadataMembers(llvm::StringRef Text);

} // namespace gestell

#endif
