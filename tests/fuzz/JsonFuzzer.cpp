//===- JsonFuzzer.cpp - Fuzz target: a kernel's .json (Triton metadata) ---===//
//
// Reads the input as the <name>.json Triton writes beside a kernel. Errors,
// a syntax error or nesting too deep among them, are at a line and column.
// Where the one-pass read of the members gestell uses (scanMetadataMembers)
// takes the input, llvm::json::parse must read the same metadata from it.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Bundle.h"
#include "readers/JsonInput.h"

#include "llvm/Support/JSON.h"

#include <cstdlib>

using namespace gestell;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  Expected<KernelMetadata> M = parseKernelMetadata(Text, "fuzz.json");
  if (!M)
    fuzz::expectInputError(M.takeError(), "fuzz.json", Text,
                           fuzz::Position::FileOrText);
  if (std::optional<json::Object> Read = scanMetadataMembers(Text)) {
    Expected<json::Value> Whole = json::parse(Text);
    if (!Whole || !Whole->getAsObject() ||
        !(kernelMetadataFromJson(*Read) ==
          kernelMetadataFromJson(*Whole->getAsObject())))
      std::abort(); // the scan took what the whole parse reads otherwise
  }
  return 0;
}
