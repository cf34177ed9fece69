//===- TraceFuzzer.cpp - Fuzz target: a TritonParse trace -----------------===//
//
// Reads the input as a TritonParse trace (plain NDJSON, or gzip when it
// starts with gzip's magic bytes), twice: line by line from memory
// (TraceLineReader, parseTraceEvent), and as a file through discovery, which
// makes its compilation events kernels whose stages are read again from the
// file (openArtifact on each stage's label, inside and outside a window).
// Besides not crashing, it checks that:
//   - every error is an InputError naming the input, at a line the reader
//     reached and, for a JSON syntax error, a column inside that line;
//   - line numbers count up by one and offsets add up to what was read;
//   - each stage a kernel of discovery reads is the text the first pass
//     parsed for that event and file.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "gestell/Bundle.h"
#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Trace.h"

#include "llvm/ADT/StringMap.h"

#include <map>

using namespace gestell;
using namespace llvm;

namespace {

/// An error of the reader (or an event) of the trace at Path, which had
/// Lines lines; Lengths[L] is line L's length.
void expectTraceError(Error E, StringRef Path, unsigned Lines,
                      const std::map<unsigned, size_t> &Lengths) {
  handleAllErrors(
      std::move(E),
      [&](const InputError &IE) {
        if (!StringRef(IE.Path).ends_with(Path))
          fuzz::fail("an error names '" + IE.Path +
                     "', not the trace: " + IE.Message);
        if (IE.Message.empty())
          fuzz::fail("an error without a message");
        if (IE.Line == 0 || IE.Line > Lines + 1)
          fuzz::fail("an error at line " + Twine(IE.Line) + " of a trace of " +
                     Twine(Lines) + " lines: " + IE.Message);
        auto It = Lengths.find(IE.Line);
        if (IE.Column && (It == Lengths.end() || IE.Column > It->second + 1))
          fuzz::fail("an error at column " + Twine(IE.Column) + " of line " +
                     Twine(IE.Line) + ", past its end: " + IE.Message);
      },
      [&](const ErrorInfoBase &Other) {
        fuzz::fail("an error that is not an InputError: " + Other.message());
      });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Bytes = fuzz::asText(Data, Size);

  // 1. From memory, line by line.
  std::map<unsigned, StringMap<std::string>> Texts; // line -> file -> text
  std::map<unsigned, size_t> Lengths;
  std::vector<Error> Errors;
  unsigned Lines = 0;
  uint64_t Offset = 0;
  {
    std::unique_ptr<TraceLineReader> R =
        TraceLineReader::fromMemory(Bytes, "fuzz.ndjson");
    for (;;) {
      TraceLineReader::Status S = R->next();
      if (S == TraceLineReader::Status::End)
        break;
      if (S == TraceLineReader::Status::Failed) {
        Errors.push_back(R->takeError());
        break;
      }
      if (R->lineNumber() != Lines + 1)
        fuzz::fail("line " + Twine(R->lineNumber()) + " after line " +
                   Twine(Lines));
      if (R->lineOffset() != Offset)
        fuzz::fail("line " + Twine(R->lineNumber()) + " at offset " +
                   Twine(R->lineOffset()) + ", expected " + Twine(Offset));
      Lines = R->lineNumber();
      Offset += R->lineLength();
      if (S == TraceLineReader::Status::TooLong)
        continue;
      Lengths[Lines] = R->line().size();
      if (!R->isGzip() && R->line().size() + 1 < R->lineLength() &&
          !Bytes.substr(R->lineOffset() + R->line().size()).starts_with("\r"))
        fuzz::fail("a line shorter than its length for no line ending");
      Expected<TraceEvent> E = parseTraceEvent(R->line(), "fuzz.ndjson", Lines);
      if (!E) {
        Errors.push_back(E.takeError());
        continue;
      }
      if (E->Type == "compilation")
        for (TraceEvent::File &F : E->Files)
          Texts[Lines][F.Name] = std::move(F.Text);
    }
  }
  for (Error &E : Errors)
    expectTraceError(std::move(E), "fuzz.ndjson", Lines, Lengths);

  // 2. As a file: discovery, then every stage of every kernel, read again.
  std::string Path = fuzz::writeInputFile("fuzz.ndjson", Bytes);
  Discovery D = discoverKernels({Path});
  for (const DiscoveryProblem &P : D.Problems)
    if (P.Severity == Level::Error && P.Path != Path)
      fuzz::fail("a problem names '" + P.Path +
                 "', not the trace: " + P.Message);
  auto ReadStages = [&](const Kernel &K) {
    if (!K.Trace)
      fuzz::fail("a kernel of a trace without its event");
    for (unsigned I = 0; I < NumStages; ++I) {
      Stage S = static_cast<Stage>(I);
      if (!K.has(S) || S == Stage::Cubin)
        continue;
      std::optional<TracePlace> P = tracePlace(K.path(S));
      if (!P || P->EventLine != K.Trace->Line)
        fuzz::fail("a stage label that names no event: " + K.path(S));
      Expected<std::unique_ptr<MemoryBuffer>> B =
          openArtifact(K.path(S), Content::Binary);
      if (!B) {
        expectTraceError(B.takeError(), "fuzz.ndjson", Lines, Lengths);
        continue;
      }
      auto Event = Texts.find(P->EventLine);
      if (Event == Texts.end() || !Event->second.count(P->StageFile))
        fuzz::fail("a stage the first pass did not find: " + K.path(S));
      if ((*B)->getBuffer() != Event->second[P->StageFile])
        fuzz::fail("a stage read again is not the text first read: " +
                   K.path(S));
    }
  };
  std::vector<const Kernel *> Kernels;
  for (const Kernel &K : D.Kernels) {
    ReadStages(K);
    Kernels.push_back(&K);
  }
  forEachTraceWindow(Kernels, [&](size_t Begin, size_t End) {
    for (size_t I = Begin; I < End; ++I)
      ReadStages(*Kernels[I]);
  });
  return 0;
}
