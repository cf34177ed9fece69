//===- TraceStore.cpp - The traces this process read, and their stages ----===//
//
// One process-wide store (the SDK is one shared library): per trace file,
// where each compilation event is, and a weak reference to its texts while
// something holds them. A stage's MemoryBuffer owns its event's texts, so
// the other stages of the kernel read while it lives come from memory; a
// window (forEachTraceWindow) holds the events of its kernels, read in
// trace order, until its tasks are done. Otherwise an event is read again:
// a plain trace seeks to it, a gzip one inflates forward to it (from the
// start when it lies behind).
//
//===----------------------------------------------------------------------===//
#include "readers/trace/TraceStore.h"
#include "gestell/Error.h"
#include "gestell/Trace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <map>
#include <mutex>

using namespace llvm;

namespace gestell {

namespace {

/// The texts of one compilation event, or why it could not be read again.
struct EventTexts {
  std::vector<TraceEvent::File> Files;
  std::string Failure;
};

struct StoredEvent {
  uint64_t Offset = 0, Length = 0;
  std::string Hash;
  std::weak_ptr<const EventTexts> Cached;
};

struct StoredTrace {
  std::mutex M;
  std::map<unsigned, StoredEvent> Events;
  std::unique_ptr<TraceLineReader> Reader; ///< kept open for re-reads
};

class Store {
public:
  std::mutex M;
  StringMap<std::unique_ptr<StoredTrace>> Traces;
  std::atomic<bool> Any{false};

  StoredTrace *find(StringRef Trace) {
    if (!Any.load(std::memory_order_acquire))
      return nullptr;
    std::lock_guard<std::mutex> L(M);
    auto It = Traces.find(Trace);
    return It == Traces.end() ? nullptr : It->second.get();
  }
};

Store &store() {
  static Store S;
  return S;
}

/// A stage's text, owning the event it is part of.
class StageBuffer : public MemoryBuffer {
public:
  StageBuffer(std::shared_ptr<const EventTexts> Owner, StringRef Text,
              StringRef Name)
      : Owner(std::move(Owner)), Name(Name.str()) {
    // Text is a whole std::string: a NUL follows it, as openArtifact
    // promises of every buffer.
    init(Text.begin(), Text.end(), /*RequiresNullTerminator=*/true);
  }
  StringRef getBufferIdentifier() const override { return Name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  std::shared_ptr<const EventTexts> Owner;
  std::string Name;
};

/// Reads event E (at Line) of T again; T.M is held.
std::shared_ptr<const EventTexts> readEventAgain(StringRef Trace,
                                                 StoredTrace &T, unsigned Line,
                                                 const StoredEvent &E) {
  auto Texts = std::make_shared<EventTexts>();
  auto Fail = [&](Error Err) {
    // The error names the trace and line already: keep the message only.
    handleAllErrors(
        std::move(Err),
        [&](const InputError &I) { Texts->Failure = I.Message; },
        [&](const ErrorInfoBase &B) { Texts->Failure = B.message(); });
    T.Reader.reset();
    return Texts;
  };
  if (!T.Reader) {
    Expected<std::unique_ptr<TraceLineReader>> R = TraceLineReader::open(Trace);
    if (!R)
      return Fail(R.takeError());
    T.Reader = std::move(*R);
  }
  if (Error Err = T.Reader->seekTo(E.Offset, Line))
    return Fail(std::move(Err));
  TraceLineReader::Status S = T.Reader->next();
  if (S == TraceLineReader::Status::Failed)
    return Fail(T.Reader->takeError());
  if (S != TraceLineReader::Status::Line ||
      T.Reader->lineOffset() != E.Offset) {
    Texts->Failure = "cannot read this event again (was the trace changed "
                     "while gestell read it?)";
    return Texts;
  }
  Expected<TraceEvent> Ev = parseTraceEvent(T.Reader->line(), Trace, Line);
  if (!Ev)
    return Fail(Ev.takeError());
  if (Ev->Hash != E.Hash) {
    Texts->Failure = "this event is not the one gestell read before (was the "
                     "trace changed while gestell read it?)";
    return Texts;
  }
  Texts->Files = std::move(Ev->Files);
  return Texts;
}

/// The texts of event Line of T, from memory while something holds them,
/// else read again; T.M is held.
std::shared_ptr<const EventTexts> readEvent(StringRef Trace, StoredTrace &T,
                                            unsigned Line) {
  auto It = T.Events.find(Line);
  if (It == T.Events.end()) {
    auto Texts = std::make_shared<EventTexts>();
    Texts->Failure = "no compilation event at this line";
    return Texts;
  }
  StoredEvent &E = It->second;
  if (std::shared_ptr<const EventTexts> C = E.Cached.lock())
    return C;
  std::shared_ptr<const EventTexts> Texts = readEventAgain(Trace, T, Line, E);
  E.Cached = Texts;
  return Texts;
}

/// A label's trace (a registered one) and the rest after "TRACE:".
std::optional<std::pair<std::string, StringRef>> splitLabel(StringRef Path) {
  if (!store().Any.load(std::memory_order_acquire))
    return std::nullopt;
  for (StringRef Suffix : {".ndjson.gz:", ".ndjson:"}) {
    for (size_t At = Path.find(Suffix); At != StringRef::npos;
         At = Path.find(Suffix, At + 1)) {
      StringRef Trace = Path.take_front(At + Suffix.size() - 1);
      if (store().find(Trace))
        return std::make_pair(Trace.str(), Path.drop_front(Trace.size() + 1));
    }
  }
  return std::nullopt;
}

} // namespace

std::string traceLabel(StringRef Trace, unsigned Line, StringRef StageFile) {
  std::string L = (Trace + ":" + Twine(Line)).str();
  if (!StageFile.empty())
    L += (": " + StageFile).str();
  return L;
}

std::optional<TracePlace> tracePlace(StringRef Path) {
  std::optional<std::pair<std::string, StringRef>> S = splitLabel(Path);
  if (!S)
    return std::nullopt;
  auto [LineText, File] = S->second.split(':');
  TracePlace P;
  if (LineText.getAsInteger(10, P.EventLine) || P.EventLine == 0)
    return std::nullopt;
  if (S->second.contains(':')) {
    if (!File.consume_front(" ") || File.empty())
      return std::nullopt;
    P.StageFile = File.str();
  }
  P.Trace = std::move(S->first);
  return P;
}

namespace trace {

void registerTrace(StringRef Trace, std::vector<IndexedEvent> Events) {
  auto T = std::make_unique<StoredTrace>();
  for (IndexedEvent &E : Events) {
    StoredEvent &S = T->Events[E.Line];
    S.Offset = E.Offset;
    S.Length = E.Length;
    S.Hash = std::move(E.Hash);
  }
  Store &St = store();
  std::lock_guard<std::mutex> L(St.M);
  // A trace read again (gestell diff A A) is indexed again: kernels find
  // their event by line, and a re-read checks the event's hash.
  auto It = St.Traces.find(Trace);
  if (It != St.Traces.end()) {
    std::lock_guard<std::mutex> TL(It->second->M);
    It->second->Events = std::move(T->Events);
    It->second->Reader.reset();
    return;
  }
  St.Traces[Trace] = std::move(T);
  St.Any.store(true, std::memory_order_release);
}

std::optional<Expected<std::unique_ptr<MemoryBuffer>>>
openTraceStage(StringRef Path, Content Kind) {
  std::optional<TracePlace> P = tracePlace(Path);
  if (!P)
    return std::nullopt;
  StoredTrace *T = store().find(P->Trace);
  if (P->StageFile.empty())
    return Expected<std::unique_ptr<MemoryBuffer>>(inputError(
        P->Trace, P->EventLine, 0, "a trace event, not a file to read"));
  std::shared_ptr<const EventTexts> Texts;
  {
    std::lock_guard<std::mutex> L(T->M);
    Texts = readEvent(P->Trace, *T, P->EventLine);
  }
  if (!Texts->Failure.empty())
    return Expected<std::unique_ptr<MemoryBuffer>>(
        inputError(P->Trace, P->EventLine, 0, Texts->Failure));
  const TraceEvent::File *F = nullptr;
  for (const TraceEvent::File &X : Texts->Files)
    if (X.Name == P->StageFile)
      F = &X;
  if (!F)
    return Expected<std::unique_ptr<MemoryBuffer>>(
        inputError(Path, "no such file in the trace event"));
  StringRef Text = F->Text;
  if (Kind == Content::Text) {
    size_t Nul = Text.take_front(64 * 1024).find('\0');
    if (Nul != StringRef::npos) {
      LineCol LC = lineColOf(Text, Nul);
      return Expected<std::unique_ptr<MemoryBuffer>>(
          inputError(Path, LC.Line, LC.Column,
                     "binary data (NUL byte) where text was expected"));
    }
  }
  return Expected<std::unique_ptr<MemoryBuffer>>(
      std::make_unique<StageBuffer>(Texts, Text, Path));
}

} // namespace trace

void forEachTraceWindow(ArrayRef<const Kernel *> Kernels,
                        function_ref<void(size_t, size_t)> Body) {
  const size_t N = Kernels.size();
  size_t Begin = 0;
  while (Begin < N) {
    size_t End = Begin, Count = 0;
    uint64_t Bytes = 0;
    for (; End < N; ++End) {
      const Kernel *K = Kernels[End];
      if (!K->Trace)
        continue;
      if (Count && (Count == TraceWindowKernels ||
                    Bytes + K->Trace->Length > TraceWindowBytes))
        break;
      ++Count;
      Bytes += K->Trace->Length;
    }
    // Read the window's events in trace order and hold them.
    std::vector<const TraceEventRef *> Refs;
    for (size_t I = Begin; I < End; ++I)
      if (Kernels[I]->Trace)
        Refs.push_back(&*Kernels[I]->Trace);
    llvm::sort(Refs, [](const TraceEventRef *A, const TraceEventRef *B) {
      return std::tie(A->Trace, A->Offset) < std::tie(B->Trace, B->Offset);
    });
    std::vector<std::shared_ptr<const EventTexts>> Held;
    for (const TraceEventRef *R : Refs) {
      StoredTrace *T = store().find(R->Trace);
      if (!T)
        continue;
      std::lock_guard<std::mutex> L(T->M);
      Held.push_back(readEvent(R->Trace, *T, R->Line));
    }
    Body(Begin, End);
    Begin = End;
  }
}

} // namespace gestell
