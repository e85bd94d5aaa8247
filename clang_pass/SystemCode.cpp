//===- SystemCode.cpp - code from outside the program ---------------------===//
//
// Which code is the system's, where its statements are attributed, and the
// inlining of the program's calls into it; see SystemCode.h.
//
//===----------------------------------------------------------------------===//

#include "SystemCode.h"
#include "Filter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;

namespace commhint {

namespace {

// Calls a chain of inlining may bring into one function, and how deep the
// chain goes: std::sort's helpers call each other a few levels down; what
// is past the budget stays a call (its statements keep their own lines).
constexpr unsigned MaxDepth = 12;
constexpr size_t MaxInlinedPerFunction = 4096;
// Marks a clone of library code for one line of the program.
constexpr const char *ProgramLocKind = "commhint.program_loc";

std::string fileOfLoc(const DILocation *L) {
  return L ? sourcePath(L->getScope()) : "";
}

struct Pending {
  CallBase *CB;
  unsigned Depth;
  std::vector<const Function *>
      Path; // the system functions inlined to reach it
};

bool inlinable(const CallBase &CB, const Function *Caller,
               const std::vector<const Function *> &Path) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || Callee->isDeclaration() || Callee == Caller ||
      Callee->isVarArg() || Callee->hasFnAttribute(Attribute::Naked) ||
      !isSystemFunction(*Callee))
    return false;
  for (const Function *P : Path)
    if (P == Callee) // recursive: inlining would not end
      return false;
  return isInlineViable(*const_cast<Function *>(Callee)).isSuccess();
}

} // namespace

std::string sourcePath(const DIScope *S) {
  if (!S)
    return "";
  StringRef Name = S->getFilename(), Dir = S->getDirectory();
  if (Name.empty() || Dir.empty() || sys::path::is_absolute(Name))
    return Name.str();
  return (Dir + "/" + Name).str();
}

bool isSystemFile(StringRef Path) {
  if (!sys::path::is_absolute(Path))
    return false;
  SmallString<256> P(Path);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  StringRef S = P.str();
  return S.startswith("/usr/include/") || S.startswith("/usr/local/include/") ||
         S.startswith("/usr/lib/") || S.startswith("/usr/lib64/");
}

bool isSystemFunction(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  return SP && isSystemFile(sourcePath(SP));
}

const DILocation *userLocation(const DILocation *Loc) {
  const DILocation *L = Loc;
  while (L && isSystemFile(fileOfLoc(L)) && L->getInlinedAt())
    L = L->getInlinedAt();
  return L;
}

// The program's functions the pass instruments (not library code).
static std::vector<Function *> programFunctions(Module &M, const Filter &Flt) {
  std::vector<Function *> Fs;
  for (Function &F : M)
    if (!F.isDeclaration() && !isSystemFunction(F) && !programLocation(F) &&
        !F.getName().startswith("__commhint") && Flt.shouldInstrument(F, M))
      Fs.push_back(&F);
  return Fs;
}

const DILocation *programLocation(const Function &F) {
  if (const MDNode *N = F.getMetadata(ProgramLocKind))
    if (N->getNumOperands() == 1)
      return dyn_cast_or_null<DILocation>(N->getOperand(0).get());
  return nullptr;
}

const DILocation *programLocationIn(const Function &F, const DILocation *Loc) {
  if (const DILocation *P = programLocation(F))
    return P;
  return userLocation(Loc);
}

size_t cloneSystemCallees(Module &M, const Filter &Flt) {
  // (callee, the program's line) -> its clone
  std::map<std::tuple<Function *, std::string, unsigned>, Function *> Clones;
  std::vector<std::pair<CallBase *, const DILocation *>> Work;
  auto Calls = [&](Function &F, const DILocation *Line) {
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I)) {
          Function *Callee = CB->getCalledFunction();
          if (Callee && !Callee->isDeclaration() && isSystemFunction(*Callee))
            Work.push_back(
                {CB, Line ? Line : userLocation(CB->getDebugLoc().get())});
        }
  };
  for (Function *F : programFunctions(M, Flt))
    Calls(*F, nullptr);
  size_t Made = 0;
  while (!Work.empty()) {
    auto [CB, Line] = Work.back();
    Work.pop_back();
    if (!Line)
      continue; // no line to give it: it stays the library's
    Function *Callee = CB->getCalledFunction();
    auto Key = std::make_tuple(Callee, fileOfLoc(Line), Line->getLine());
    Function *&Clone = Clones[Key];
    if (!Clone) {
      ValueToValueMapTy VMap;
      Clone = CloneFunction(Callee, VMap);
      Clone->setLinkage(GlobalValue::InternalLinkage);
      Clone->setVisibility(GlobalValue::DefaultVisibility);
      Clone->setComdat(nullptr);
      Clone->setName(Callee->getName() + ".commhint.line" +
                     std::to_string(Line->getLine()));
      Clone->setMetadata(
          ProgramLocKind,
          MDTuple::get(M.getContext(), {const_cast<DILocation *>(Line)}));
      ++Made;
      Calls(*Clone, Line);
    }
    CB->setCalledFunction(Clone);
  }
  return Made;
}

SmallPtrSet<const Function *, 16> unreachedSystemCopies(const Module &M) {
  auto Copy = [](const Function &F) {
    return !F.isDeclaration() &&
           (F.hasLinkOnceLinkage() || F.hasLocalLinkage()) &&
           isSystemFunction(F) && !programLocation(F);
  };
  SmallPtrSet<const Function *, 16> Reached;
  std::vector<const Function *> Work;
  auto Reach = [&](const Function *F) {
    if (Reached.insert(F).second)
      Work.push_back(F);
  };
  for (const Function &F : M) {
    if (!Copy(F)) {
      Reach(&F);
      continue;
    }
    for (const User *U :
         F.users()) // a use outside any function: a global, llvm.used
      if (!isa<Instruction>(U))
        Reach(&F);
  }
  // what the reached functions use is reached
  while (!Work.empty()) {
    const Function *F = Work.back();
    Work.pop_back();
    for (const BasicBlock &BB : *F)
      for (const Instruction &I : BB)
        for (const Value *Op : I.operands())
          if (const auto *G = dyn_cast<Function>(Op->stripPointerCasts()))
            Reach(G);
  }
  SmallPtrSet<const Function *, 16> Unreached;
  for (const Function &F : M)
    if (Copy(F) && !Reached.count(&F))
      Unreached.insert(&F);
  return Unreached;
}

size_t inlineSystemCalls(Module &M, const Filter &Flt) {
  size_t Total = 0;
  std::vector<Function *> Callers = programFunctions(M, Flt);
  for (Function *F : Callers) {
    std::vector<Pending> Work;
    for (BasicBlock &BB : *F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (inlinable(*CB, F, {}))
            Work.push_back({CB, 0, {}});
    size_t Done = 0;
    while (!Work.empty() && Done < MaxInlinedPerFunction) {
      Pending P = std::move(Work.back());
      Work.pop_back();
      Function *Callee = P.CB->getCalledFunction();
      InlineFunctionInfo IFI;
      if (!InlineFunction(*P.CB, IFI).isSuccess())
        continue;
      ++Done;
      if (P.Depth + 1 >= MaxDepth)
        continue;
      std::vector<const Function *> Path = P.Path;
      Path.push_back(Callee);
      for (CallBase *New : IFI.InlinedCallSites)
        if (inlinable(*New, F, Path))
          Work.push_back({New, P.Depth + 1, Path});
    }
    Total += Done;
  }
  return Total;
}

} // namespace commhint
