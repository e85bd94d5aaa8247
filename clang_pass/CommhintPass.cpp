//===- CommhintPass.cpp - the commhint instrumentation pass ---------------===//
//
// The transform half of the pass: inserts the runtime calls that the plan
// of AccessAnalysis asks for, numbers sites and loops locally (the runtime
// hands out global bases), and emits the site table and its constructor.
//
//===----------------------------------------------------------------------===//

#include "CommhintPass.h"

#include "AccessAnalysis.h"
#include "DepAnalysis.h"
#include "ExitRecorded.h"
#include "Filter.h"
#include "SiteTable.h"
#include "SystemCode.h"

#include "commhint-rt.h"
#include "mpi-local.h"
#include "trace-format.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstddef>
#include <iterator>
#include <utility>

using namespace llvm;

namespace commhint {

namespace {

constexpr const char SiteBaseName[] = "__commhint_site_base";
constexpr const char LoopBaseName[] = "__commhint_loop_base";
constexpr const char CtorName[] = "commhint.module_ctor";
constexpr const char FastName[] = "__commhint_fast";
constexpr int CtorPriority = 1;

// Inserts the calls of one module and collects its site table.
class Instrumenter {
public:
  explicit Instrumenter(Module &M, bool Print, bool Inline)
      : M(M), Print(Print), Inline(Inline), Ctx(M.getContext()), I32(Type::getInt32Ty(Ctx)),
        I64(Type::getInt64Ty(Ctx)), Ptr(Type::getInt8PtrTy(Ctx)),
        Void(Type::getVoidTy(Ctx)),
        I32Ext(TargetLibraryInfo::getExtAttrForI32Param(
            Triple(M.getTargetTriple()), /*Signed=*/false)) {}

  void instrument(Function &F, FunctionPlan &Plan,
                  const std::vector<ExitRecordedLoop> &AtExit);
  /// Records the dependences of the sites instrument() just added (local
  /// ids from \p FirstLocal) and merges the function's symbol rows.
  void addDeps(uint32_t FirstLocal, const std::vector<std::vector<Dep>> &Rows);
  uint32_t numSites() const { return Table.numSites(); }
  SymbolRows &symbols() { return Syms; }
  bool empty() const { return Table.numSites() == 0 && Table.numLoops() == 0; }
  void emitTable();
  /// The instrumented functions that code elsewhere may call by address
  /// (__commhint_register_code from a constructor of their own).
  void emitCode(ArrayRef<Function *> Fns);

private:
  FunctionCallee runtime(StringRef Name, Type *Ret, ArrayRef<Type *> Params);
  GlobalVariable *base(const char *Name);
  GlobalVariable *fastGlobal();
  Value *globalId(IRBuilder<> &B, Value *Base, uint32_t Local);
  void instrumentSite(const Site &S, uint32_t Local, Value *SiteBase,
                      Value *SiteKeyBase, AllocaInst *Addrs);
  void callWithFastPath(Instruction *At, Value *Key, ArrayRef<Value *> Addrs,
                        FunctionCallee Slow, ArrayRef<Value *> SlowArgs);
  void recordAtExits(const ExitRecordedLoop &E,
                     ArrayRef<uint32_t> SiteLocal, uint32_t LoopLocal,
                     Value *SiteBase, Value *LoopBase, AllocaInst *Frame,
                     AllocaInst *Irr);

  Module &M;
  bool Print;
  bool Inline; // emit the inline fast path (commhint-rt.h)
  LLVMContext &Ctx;
  Type *I32, *I64, *Ptr, *Void;
  Attribute::AttrKind I32Ext;
  std::vector<SiteTable::DepEntry> entries(const std::vector<Dep> &Deps);
  static std::string depText(const Dep &D);

  SiteTable Table;
  SymbolRows Syms;
  std::string DepLines; // -commhint-print-sites: the deps lines, printed last
  StringMap<FunctionCallee> Runtime;
};

// Text forms of the table entries for -commhint-print-sites.
const char *kindName(uint8_t Kind) {
  switch (Kind) {
  case CHT_SITE_COMP:
    return "comp";
  case CHT_SITE_MEMCPY:
    return "memcpy";
  case CHT_SITE_MEMSET:
    return "memset";
  case CHT_SITE_CALL:
    return "call";
  }
  return "?";
}

const char *opName(uint8_t Op) {
  static const char *const Names[] = {
      "none", "copy", "add", "sub",  "mul",  "div", "fadd", "fsub", "fmul",
      "fdiv", "min",  "max", "fmin", "fmax", "and", "or",   "xor",  "other"};
  return Op < std::size(Names) ? Names[Op] : "?";
}

std::string flagNames(uint32_t Flags) {
  static const std::pair<uint32_t, const char *> Names[] = {
      {CHT_SITEF_CONDITIONAL, "conditional"},
      {CHT_SITEF_ACCUMULATE, "accumulate"},
      {CHT_SITEF_INLINED, "inlined"},
      {CHT_SITEF_ATOMIC, "atomic"},
      {CHT_SITEF_VECTOR, "vector"},
      {CHT_SITEF_ARGS_ONLY, "args-only"},
      {CHT_SITEF_LOOP_TEST, "loop-test"},
      {CHT_SITEF_ARG_VARS, "arg-vars"},
      {CHT_SITEF_HEAP, "heap"}};
  std::string Out;
  for (const auto &[Bit, Name] : Names)
    if (Flags & Bit)
      Out += (Out.empty() ? "" : "|") + std::string(Name);
  return Out.empty() ? "none" : Out;
}

std::string idName(uint32_t Id) {
  return Id == CHT_NONE ? "none" : std::to_string(Id);
}

} // namespace

// Declares a runtime entry point with its commhint-rt.h signature: nounwind,
// 32-bit ids extended as the target's C ABI wants for uint32_t.
FunctionCallee Instrumenter::runtime(StringRef Name, Type *Ret,
                                     ArrayRef<Type *> Params) {
  auto It = Runtime.find(Name);
  if (It != Runtime.end())
    return It->second;
  AttributeList Attrs;
  Attrs = Attrs.addFnAttribute(Ctx, Attribute::NoUnwind);
  if (I32Ext != Attribute::None)
    for (unsigned I = 0; I < Params.size(); ++I)
      if (Params[I] == I32)
        Attrs = Attrs.addParamAttribute(Ctx, I, I32Ext);
  FunctionCallee FC =
      M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false), Attrs);
  Runtime[Name] = FC;
  return FC;
}

GlobalVariable *Instrumenter::base(const char *Name) {
  if (GlobalVariable *GV = M.getGlobalVariable(Name, /*AllowInternal=*/true))
    return GV;
  // COMMHINT_RT_BAD_BASE until __commhint_register_tu runs: ids computed
  // from it are ignored by the runtime.
  return new GlobalVariable(M, I32, /*isConstant=*/false,
                            GlobalValue::InternalLinkage,
                            ConstantInt::get(I32, COMMHINT_RT_BAD_BASE), Name);
}

Value *Instrumenter::globalId(IRBuilder<> &B, Value *Base, uint32_t Local) {
  return Local ? B.CreateAdd(Base, ConstantInt::get(I32, Local)) : Base;
}

// Record keys as commhint-rt.h defines them: type | aux << 16 | id << 32,
// with id = base + local: KeyBase (zext(base) << 32) plus a constant.
static Constant *keyConst(Type *I64, uint16_t Type_, uint16_t Aux,
                          uint32_t Local) {
  return ConstantInt::get(I64, uint64_t(Type_) | uint64_t(Aux) << 16 |
                                   uint64_t(Local) << 32);
}

// The thread's struct commhint_rt_fast (commhint-rt.h).
GlobalVariable *Instrumenter::fastGlobal() {
  GlobalVariable *Fast = M.getGlobalVariable(FastName);
  if (!Fast) {
    Fast = new GlobalVariable(
        M, ArrayType::get(Type::getInt8Ty(Ctx), sizeof(commhint_rt_fast)),
        /*isConstant=*/false, GlobalValue::ExternalLinkage, nullptr, FastName,
        nullptr, GlobalValue::InitialExecTLSModel);
    Fast->setAlignment(Align(8));
  }
  return Fast;
}

// Emits at At: if the record (Key, Addrs) is the one the thread's run
// expects next (__commhint_fast.slot[phase]), absorb it inline; otherwise
// append it to the thread's queue if it has room, or call Slow(SlowArgs).  The layout and the steps are commhint-rt.h's.
void Instrumenter::callWithFastPath(Instruction *At, Value *Key,
                                    ArrayRef<Value *> Addrs,
                                    FunctionCallee Slow,
                                    ArrayRef<Value *> SlowArgs) {
  if (!Inline || !Key) {
    IRBuilder<> B(At);
    B.CreateCall(Slow, SlowArgs);
    return;
  }
  GlobalVariable *Fast = fastGlobal();
  IRBuilder<> B(At);
  Type *I8 = Type::getInt8Ty(Ctx);
  // Field Off of the structure at P (every field is naturally aligned).
  auto Field = [&](IRBuilder<> &IRB, Value *P, uint64_t Off) {
    return Off ? IRB.CreateConstInBoundsGEP1_64(I8, P, Off) : P;
  };
  auto Load = [&](IRBuilder<> &IRB, Type *Ty, Value *P, uint64_t Off,
                  const Twine &Name = "") {
    return IRB.CreateAlignedLoad(Ty, Field(IRB, P, Off),
                                 Align(Ty->getPrimitiveSizeInBits() / 8), Name);
  };
  auto Store = [&](IRBuilder<> &IRB, Value *V, Value *P, uint64_t Off) {
    IRB.CreateAlignedStore(V, Field(IRB, P, Off),
                           Align(V->getType()->getPrimitiveSizeInBits() / 8));
  };
  Value *F = B.CreateThreadLocalAddress(Fast);
  Value *Phase =
      Load(B, I32, F, offsetof(commhint_rt_fast, phase), "commhint.phase");
  Value *Left =
      Load(B, I32, F, offsetof(commhint_rt_fast, left), "commhint.left");
  Value *SlotOff = B.CreateAdd(
      B.CreateMul(B.CreateZExt(Phase, I64),
                  ConstantInt::get(I64, sizeof(commhint_rt_slot))),
      ConstantInt::get(I64, offsetof(commhint_rt_fast, slot)));
  Value *Slot = B.CreateInBoundsGEP(I8, F, SlotOff, "commhint.slot");
  Value *Ok = B.CreateICmpEQ(
      Load(B, I64, Slot, offsetof(commhint_rt_slot, key)), Key);
  SmallVector<Value *, 4> Ints;
  for (size_t K = 0; K < Addrs.size(); ++K) {
    Value *A = B.CreatePtrToInt(Addrs[K], I64);
    Ints.push_back(A);
    Value *Next = Load(B, I64, Slot, offsetof(commhint_rt_slot, next) + 8 * K);
    Ok = B.CreateAnd(Ok, B.CreateICmpEQ(Next, A));
  }
  Ok = B.CreateAnd(Ok, B.CreateICmpNE(Left, ConstantInt::get(I32, 0)));
  Instruction *ThenT = nullptr, *ElseT = nullptr;
  SplitBlockAndInsertIfThenElse(Ok, At, &ThenT, &ElseT,
                                MDBuilder(Ctx).createBranchWeights(1000, 1));
  // Absorb: the expected addresses advance, then the phase, and last the
  // count (commhint-rt.h).
  IRBuilder<> T(ThenT);
  T.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  for (size_t K = 0; K < Ints.size(); ++K) {
    Value *Stride =
        Load(T, I64, Slot, offsetof(commhint_rt_slot, stride) + 8 * K);
    Store(T, T.CreateAdd(Ints[K], Stride), Slot,
          offsetof(commhint_rt_slot, next) + 8 * K);
  }
  Value *Period = Load(T, I32, F, offsetof(commhint_rt_fast, period));
  Value *Next = T.CreateAdd(Phase, ConstantInt::get(I32, 1));
  Store(T,
        T.CreateSelect(T.CreateICmpEQ(Next, Period), ConstantInt::get(I32, 0),
                       Next),
        F, offsetof(commhint_rt_fast, phase));
  Store(T, T.CreateSub(Left, ConstantInt::get(I32, 1)), F,
        offsetof(commhint_rt_fast, left));
  // Otherwise append it to the queue if there is room: addresses, key,
  // then (after a signal fence) the queue's new end; else the call.
  IRBuilder<> E(ElseT);
  E.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  Value *QPos =
      Load(E, I64, F, offsetof(commhint_rt_fast, qpos), "commhint.qpos");
  Value *QEnd =
      Load(E, I64, F, offsetof(commhint_rt_fast, qend), "commhint.qend");
  Value *QNext = E.CreateAdd(QPos, ConstantInt::get(I64, 8 * (1 + Ints.size())));
  Instruction *QueueT = nullptr, *CallT = nullptr;
  SplitBlockAndInsertIfThenElse(E.CreateICmpULE(QNext, QEnd), ElseT, &QueueT,
                                &CallT,
                                MDBuilder(Ctx).createBranchWeights(1000, 1));
  IRBuilder<> Q(QueueT);
  Q.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  Value *QP = Q.CreateIntToPtr(QPos, Ptr, "commhint.queue");
  for (size_t K = 0; K < Ints.size(); ++K)
    Store(Q, Ints[K], QP, 8 * (1 + K));
  Store(Q, Key, QP, 0);
  Q.CreateFence(AtomicOrdering::Release, SyncScope::SingleThread);
  Store(Q, QNext, F, offsetof(commhint_rt_fast, qpos));
  IRBuilder<> C(CallT);
  C.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  C.CreateCall(Slow, SlowArgs);
}

void Instrumenter::instrumentSite(const Site &S, uint32_t Local,
                                  Value *SiteBase, Value *SiteKeyBase,
                                  AllocaInst *Addrs) {
  Instruction *At =
      S.Kind == CHT_SITE_COMP ? S.Anchor->getNextNode() : S.Anchor;
  IRBuilder<> B(At);
  B.SetCurrentDebugLocation(S.Anchor->getDebugLoc());
  Value *Id = globalId(B, SiteBase, Local);
  switch (S.Kind) {
  case CHT_SITE_COMP: {
    size_t N = S.Accesses.size();
    if (N <= 4) {
      static const char *const Names[] = {"__commhint_ev1", "__commhint_ev2",
                                          "__commhint_ev3", "__commhint_ev4"};
      SmallVector<Type *, 5> Params(N + 1, Ptr);
      Params[0] = I32;
      SmallVector<Value *, 5> Args{Id};
      for (const Access &A : S.Accesses)
        Args.push_back(B.CreatePointerCast(A.Ptr, Ptr));
      Value *Key =
          SiteKeyBase
              ? B.CreateAdd(SiteKeyBase, keyConst(I64, CHT_REC_COMP, N, Local))
              : nullptr;
      callWithFastPath(At, Key, ArrayRef<Value *>(Args).drop_front(),
                       runtime(Names[N - 1], Void, Params), Args);
    } else {
      for (size_t K = 0; K < N; ++K)
        B.CreateStore(B.CreatePointerCast(S.Accesses[K].Ptr, Ptr),
                      B.CreateConstInBoundsGEP2_32(Addrs->getAllocatedType(),
                                                   Addrs, 0, K));
      B.CreateCall(
          runtime("__commhint_evn", Void, {I32, I32, Ptr}),
          {Id, ConstantInt::get(I32, N), B.CreatePointerCast(Addrs, Ptr)});
    }
    break;
  }
  case CHT_SITE_MEMCPY:
    B.CreateCall(runtime("__commhint_memcpy", Void, {I32, Ptr, Ptr, I64}),
                 {Id, B.CreatePointerCast(S.Dst, Ptr),
                  B.CreatePointerCast(S.Src, Ptr),
                  B.CreateZExtOrTrunc(S.Len, I64)});
    break;
  case CHT_SITE_MEMSET:
    if (S.Heap == Site::HeapFree) {
      B.CreateCall(runtime("__commhint_free", Void, {I32, Ptr}),
                   {Id, B.CreatePointerCast(S.Dst, Ptr)});
    } else if (S.Heap == Site::HeapAlloc) {
      // right after the call: its result is the block
      IRBuilder<> After(S.Anchor->getNextNode());
      After.SetCurrentDebugLocation(S.Anchor->getDebugLoc());
      Value *N = After.CreateZExtOrTrunc(S.Len, I64);
      if (S.Len2)
        N = After.CreateMul(N, After.CreateZExtOrTrunc(S.Len2, I64));
      After.CreateCall(runtime("__commhint_alloc", Void, {I32, Ptr, I64}),
                       {Id, After.CreatePointerCast(S.Dst, Ptr), N});
    } else if (S.QueryOut) {
      // an MPI query's output, written by the call: right after it
      IRBuilder<> After(S.Anchor->getNextNode());
      After.SetCurrentDebugLocation(S.Anchor->getDebugLoc());
      Value *N = After.CreateZExtOrTrunc(S.Len, I64);
      if (S.Len2) { // Len bytes per element, at most 64 elements
        Value *C = After.CreateSExtOrTrunc(S.Len2, I64);
        Value *Max = ConstantInt::get(I64, 64);
        C = After.CreateSelect(After.CreateICmpSLT(C, ConstantInt::get(I64, 0)),
                               ConstantInt::get(I64, 0), C);
        C = After.CreateSelect(After.CreateICmpSGT(C, Max), Max, C);
        N = After.CreateMul(N, C);
      }
      After.CreateCall(runtime("__commhint_memset", Void, {I32, Ptr, I64}),
                       {Id, After.CreatePointerCast(S.Dst, Ptr), N});
    } else {
      B.CreateCall(runtime("__commhint_memset", Void, {I32, Ptr, I64}),
                   {Id, B.CreatePointerCast(S.Dst, Ptr),
                    B.CreateZExtOrTrunc(S.Len, I64)});
    }
    break;
  case CHT_SITE_CALL: {
    if (S.Extern) {
      // Before the call, with its callee: the runtime records a fence when
      // the callee is not instrumented (docs/dependence.md, "Calls into
      // code built without the pass").  Before, so that what a callback
      // of the callee touches (a qsort comparator) comes after the fence:
      // a wait goes before the call, not before the callback.
      auto *CB = cast<CallBase>(S.Anchor);
      const auto *Callee =
          dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
      Value *Name = Callee ? B.CreateGlobalStringPtr(Callee->getName(),
                                                     "commhint.callee")
                           : ConstantPointerNull::get(cast<PointerType>(Ptr));
      B.CreateCall(runtime("__commhint_extern_call", Void, {I32, Ptr, Ptr}),
                   {Id, B.CreatePointerCast(CB->getCalledOperand(), Ptr), Name});
      break;
    }
    B.CreateCall(runtime("__commhint_mpi_site", Void, {I32}), {Id});
    // After a call that is not local, or that reads a clock: records it
    // if no wrapper did (mpi-local.h).  An invoke (C++) has no single
    // place after it yet.
    auto *CI = dyn_cast<CallInst>(S.Anchor);
    const Function *Callee =
        CI ? dyn_cast<Function>(CI->getCalledOperand()->stripPointerCasts())
           : nullptr;
    std::string CalleeName = Callee ? Callee->getName().str() : "";
    if (!Callee || (cht_mpi_is_local(CalleeName.c_str()) &&
                    !cht_is_clock(CalleeName.c_str())))
      break;
    IRBuilder<> After(CI->getNextNode());
    After.SetCurrentDebugLocation(CI->getDebugLoc());
    Value *Name = After.CreateGlobalStringPtr(Callee->getName(),
                                              "commhint.mpi_name");
    After.CreateCall(runtime("__commhint_mpi_after", Void, {I32, Ptr}),
                     {Id, Name});
    break;
  }
  }
}

void Instrumenter::instrument(Function &F, FunctionPlan &Plan,
                              const std::vector<ExitRecordedLoop> &AtExit) {
  if (Plan.Sites.empty() && Plan.Loops.empty())
    return;
  // Loops recorded at their exits: no iter call, no call per site.
  std::vector<bool> LoopAtExit(Plan.Loops.size()), SiteAtExit(Plan.Sites.size());
  unsigned MaxStarts = 0, MaxIrr = 0;
  for (const ExitRecordedLoop &E : AtExit) {
    LoopAtExit[E.Loop] = true;
    for (int S : E.Sites)
      SiteAtExit[S] = true;
    MaxStarts = std::max<unsigned>(MaxStarts, E.Starts.size());
    MaxIrr = std::max<unsigned>(MaxIrr, E.Irregular.size());
  }

  // Local loop ids first: sites name their innermost loop.
  std::vector<uint32_t> LoopLocal;
  for (const LoopDesc &D : Plan.Loops) {
    uint32_t Parent = D.Parent < 0 ? CHT_NONE : LoopLocal[D.Parent];
    LoopLocal.push_back(
        Table.addLoop(D.File, D.Func, D.Line, D.Col, D.Depth, Parent));
    if (Print)
      errs() << "commhint: loop " << LoopLocal.back() << " loc=" << D.File
             << ":" << D.Line << ":" << D.Col << " func=" << D.Func
             << " depth=" << D.Depth << " parent=" << idName(Parent)
             << (D.Preheader ? "" : " uninstrumented") << "\n";
  }

  // The bases are loaded once, at the top of the entry block; so is the
  // address array of __commhint_evn.
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  EB.SetCurrentDebugLocation(DebugLoc());
  AllocaInst *Addrs = nullptr;
  if (Plan.MaxAddrs > 4)
    Addrs = EB.CreateAlloca(ArrayType::get(Ptr, Plan.MaxAddrs), nullptr,
                            "commhint.addrs");
  // One frame serves every loop recorded at its exits: they do not nest.
  AllocaInst *Frame = nullptr;
  if (!AtExit.empty())
    Frame = EB.CreateAlloca(
        ArrayType::get(I64, offsetof(commhint_rt_loop_frame, starts) / 8 +
                                MaxStarts),
        nullptr, "commhint.loop_frame");
  // and one buffer their irregular addresses
  AllocaInst *Irr = nullptr;
  if (MaxIrr)
    Irr = EB.CreateAlloca(ArrayType::get(I64, COMMHINT_RT_LOOP_BUF * MaxIrr),
                          nullptr, "commhint.loop_irr");
  Value *SiteBase = nullptr, *LoopBase = nullptr;
  Value *SiteKeyBase = nullptr, *LoopKeyBase = nullptr;
  auto KeyBase = [&](Value *Base) -> Value * {
    return Inline ? EB.CreateShl(EB.CreateZExt(Base, I64), 32) : nullptr;
  };
  if (!Plan.Sites.empty()) {
    SiteBase = EB.CreateLoad(I32, base(SiteBaseName), "commhint.site_base");
    SiteKeyBase = KeyBase(SiteBase);
  }
  bool AnyLoop = llvm::any_of(
      Plan.Loops, [](const LoopDesc &D) { return D.Preheader != nullptr; });
  if (AnyLoop) {
    LoopBase = EB.CreateLoad(I32, base(LoopBaseName), "commhint.loop_base");
    LoopKeyBase = KeyBase(LoopBase);
  }

  // Where the loop calls go, taken before the sites' fast paths split
  // blocks (an instruction stays itself when its block is split).
  struct LoopPoint {
    Instruction *At;
    const char *Name;
    uint16_t Kind;
    int Loop;
  };
  std::vector<LoopPoint> LoopPoints;
  for (size_t L = 0; L < Plan.Loops.size(); ++L) {
    const LoopDesc &D = Plan.Loops[L];
    if (!D.Preheader)
      continue;
    LoopPoints.push_back({D.Preheader->getTerminator(),
                          "__commhint_loop_enter", CHT_LOOP_ENTER, int(L)});
    if (!LoopAtExit[L])
      LoopPoints.push_back({&*D.Header->getFirstInsertionPt(),
                            "__commhint_loop_iter", CHT_LOOP_ITER, int(L)});
  }
  for (const LoopExit &E : Plan.Exits) {
    auto It = E.Block->getFirstInsertionPt();
    if (It != E.Block->end())
      LoopPoints.push_back(
          {&*It, "__commhint_loop_exit", CHT_LOOP_EXIT, E.Loop});
  }

  std::vector<uint32_t> SiteLocal;
  for (size_t SI = 0; SI < Plan.Sites.size(); ++SI) {
    const Site &S = Plan.Sites[SI];
    std::vector<SiteTable::AccessEntry> Acc;
    for (const Access &A : S.Accesses)
      Acc.push_back({A.Size, A.Flags});
    uint32_t Loop = S.Loop < 0 ? CHT_NONE : LoopLocal[S.Loop];
    // Every function of the module keeps a frame pointer (run() sets it).
    uint32_t Local =
        Table.addSite(S.File, S.Func, S.Line, S.Col, S.Kind, S.Op, Loop,
                      S.Flags | CHT_SITEF_FRAME_PTR, S.Cost, Acc);
    if (Print) {
      errs() << "commhint: site " << Local << " kind="
             << (S.Extern ? "extern" : kindName(S.Kind))
             << " loc=" << S.File << ":" << S.Line << ":" << S.Col
             << " func=" << S.Func << " op=" << opName(S.Op)
             << " loop=" << idName(Loop) << " flags=" << flagNames(S.Flags)
             << " access=";
      if (Acc.empty())
        errs() << "-";
      for (size_t K = 0; K < Acc.size(); ++K)
        errs() << (K ? "," : "")
               << (Acc[K].Flags == CHT_ACCESS_READ    ? "r"
                   : Acc[K].Flags == CHT_ACCESS_WRITE ? "w"
                                                      : "rw")
               << Acc[K].Size;
      errs() << " cost=" << S.Cost << "\n";
    }
    SiteLocal.push_back(Local);
    if (!SiteAtExit[SI])
      instrumentSite(S, Local, SiteBase, SiteKeyBase, Addrs);
  }

  auto LoopCall = [&](Instruction *At, const char *Name, uint16_t Kind,
                      int Loop) {
    IRBuilder<> B(At);
    Value *Key = LoopKeyBase ? B.CreateAdd(LoopKeyBase,
                                           keyConst(I64, CHT_REC_LOOP, Kind,
                                                    LoopLocal[Loop]))
                             : nullptr;
    callWithFastPath(At, Key, {}, runtime(Name, Void, {I32}),
                     {globalId(B, LoopBase, LoopLocal[Loop])});
  };
  for (const LoopPoint &P : LoopPoints)
    LoopCall(P.At, P.Name, P.Kind, P.Loop);
  // Last: each exit block starts with the loop's records, before its exit
  // record (whose fast path split the block after its first instructions).
  for (const ExitRecordedLoop &E : AtExit)
    recordAtExits(E, SiteLocal, LoopLocal[E.Loop], SiteBase, LoopBase, Frame,
                  Irr);
}

// The loop E's frame (commhint-rt.h) filled and linked where the loop is
// entered, the iterations done stored by each (after its irregular
// addresses, with a call to __commhint_loop_flush when the buffer is
// full), and at each exit one call of __commhint_loop_affine(frame,
// trips).  desc is a constant array of u64: the loop's local id | sites
// << 32, per site its local id | addresses << 32, then the steps.
void Instrumenter::recordAtExits(const ExitRecordedLoop &E,
                                 ArrayRef<uint32_t> SiteLocal,
                                 uint32_t LoopLocal, Value *SiteBase,
                                 Value *LoopBase, AllocaInst *Frame,
                                 AllocaInst *Irr) {
  SmallVector<Constant *, 16> Desc;
  auto Word = [&](uint64_t W) { Desc.push_back(ConstantInt::get(I64, W)); };
  Word(uint64_t(LoopLocal) | uint64_t(E.Sites.size()) << 32);
  for (size_t K = 0; K < E.Sites.size(); ++K)
    Word(uint64_t(SiteLocal[E.Sites[K]]) | uint64_t(E.Addrs[K]) << 32);
  for (int64_t Step : E.Steps)
    Word(uint64_t(Step));
  ArrayType *Ty = ArrayType::get(I64, Desc.size());
  auto *G = new GlobalVariable(M, Ty, /*isConstant=*/true,
                               GlobalValue::PrivateLinkage,
                               ConstantArray::get(Ty, Desc), "commhint.loop_desc");
  G->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  G->setAlignment(Align(8));

  Type *I8 = Type::getInt8Ty(Ctx);
  auto Field = [&](IRBuilder<> &B, uint64_t Off) {
    return B.CreateConstInBoundsGEP1_64(I8, Frame, Off);
  };
  BasicBlock *H = E.Header;
  // Entered from the block before the header (the preheader, or its tail
  // after the enter record's fast path split it).
  BasicBlock *Pre = nullptr;
  for (BasicBlock *P : predecessors(H))
    if (P != H)
      Pre = P;
  IRBuilder<> B(Pre->getTerminator());
  B.SetCurrentDebugLocation(DebugLoc());
  Value *Zero32 = ConstantInt::get(I32, 0), *Zero64 = ConstantInt::get(I64, 0);
  B.CreateStore(G, Field(B, offsetof(commhint_rt_loop_frame, desc)));
  B.CreateStore(LoopBase ? LoopBase : Zero32,
                Field(B, offsetof(commhint_rt_loop_frame, loop_base)));
  B.CreateStore(SiteBase ? SiteBase : Zero32,
                Field(B, offsetof(commhint_rt_loop_frame, site_base)));
  B.CreateStore(Zero64, Field(B, offsetof(commhint_rt_loop_frame, done)));
  B.CreateStore(Zero64, Field(B, offsetof(commhint_rt_loop_frame, made)));
  Value *NoIrr = ConstantPointerNull::get(cast<PointerType>(Ptr));
  B.CreateStore(E.Irregular.empty() ? NoIrr : static_cast<Value *>(Irr),
                Field(B, offsetof(commhint_rt_loop_frame, irr)));
  for (size_t K = 0; K < E.Starts.size(); ++K) {
    Value *V = E.Starts[K];
    if (!V)
      V = Zero64;
    else
      V = V->getType()->isPointerTy() ? B.CreatePtrToInt(V, I64)
                                      : B.CreateZExtOrTrunc(V, I64);
    B.CreateStore(V, Field(B, offsetof(commhint_rt_loop_frame, starts) + 8 * K));
  }
  Value *F = B.CreateThreadLocalAddress(fastGlobal());
  Value *Link = B.CreateConstInBoundsGEP1_64(I8, F, offsetof(commhint_rt_fast, loop));
  B.CreateStore(B.CreateLoad(Ptr, Link, "commhint.loop_prev"),
                Field(B, offsetof(commhint_rt_loop_frame, prev)));
  B.CreateFence(AtomicOrdering::Release, SyncScope::SingleThread);
  B.CreateStore(Frame, Link);
  // Each iteration: its irregular addresses, then the iterations done, for
  // a signal handler; a full buffer emptied.
  IRBuilder<> HB(H->getTerminator());
  Value *Slot = nullptr;
  if (!E.Irregular.empty()) {
    uint64_t N = E.Irregular.size();
    Slot = HB.CreateAnd(E.Iter, ConstantInt::get(I64, COMMHINT_RT_LOOP_BUF - 1),
                        "commhint.irr_slot");
    Value *Row = N == 1 ? Slot : HB.CreateMul(Slot, ConstantInt::get(I64, N));
    for (uint64_t K = 0; K < N; ++K) {
      Value *At = HB.CreateInBoundsGEP(
          I64, Irr, K ? HB.CreateAdd(Row, ConstantInt::get(I64, K)) : Row);
      HB.CreateStore(HB.CreatePtrToInt(E.Irregular[K], I64), At,
                     /*isVolatile=*/true);
    }
  }
  HB.CreateStore(E.Trips, Field(HB, offsetof(commhint_rt_loop_frame, done)),
                 /*isVolatile=*/true);
  if (Slot) {
    Value *Full = HB.CreateICmpEQ(
        Slot, ConstantInt::get(I64, COMMHINT_RT_LOOP_BUF - 1));
    MDBuilder MDB(Ctx);
    Instruction *Then = SplitBlockAndInsertIfThen(
        Full, H->getTerminator(), /*Unreachable=*/false,
        MDB.createBranchWeights(1, COMMHINT_RT_LOOP_BUF - 1));
    IRBuilder<> FB(Then);
    FB.SetCurrentDebugLocation(DebugLoc());
    FB.CreateCall(runtime("__commhint_loop_flush", Void, {Ptr}), {Frame});
  }
  FunctionCallee Fn = runtime("__commhint_loop_affine", Void, {Ptr, I64});
  for (BasicBlock *X : E.Exits) {
    IRBuilder<> XB(&*X->getFirstInsertionPt());
    XB.SetCurrentDebugLocation(DebugLoc());
    XB.CreateCall(Fn, {Frame, E.Trips});
  }
}

std::vector<SiteTable::DepEntry>
Instrumenter::entries(const std::vector<Dep> &Deps) {
  std::vector<SiteTable::DepEntry> Out;
  for (const Dep &D : Deps) {
    bool Sym = D.Kind == CHT_DEP_SYM_VALUE || D.Kind == CHT_DEP_SYM_CONTROL;
    Out.push_back({Sym ? Table.addString(D.Func) : D.Site, D.Kind,
                   Sym ? D.Arg : int16_t(0)});
  }
  return Out;
}

// "v3" (a value of site 3), "c3" (a condition), "v:ret:f", "c:entry:f",
// "v:p1:f" for -commhint-print-sites.
std::string Instrumenter::depText(const Dep &D) {
  switch (D.Kind) {
  case CHT_DEP_VALUE:
    return "v" + std::to_string(D.Site);
  case CHT_DEP_CONTROL:
    return "c" + std::to_string(D.Site);
  default:
    break;
  }
  std::string Arg = D.Arg == CHT_DEP_ARG_RET     ? "ret"
                    : D.Arg == CHT_DEP_ARG_ENTRY ? "entry"
                                                 : "p" + std::to_string(D.Arg);
  return std::string(D.Kind == CHT_DEP_SYM_VALUE ? "v:" : "c:") + Arg + ":" +
         D.Func.str();
}

void Instrumenter::addDeps(uint32_t FirstLocal,
                           const std::vector<std::vector<Dep>> &Rows) {
  for (size_t K = 0; K < Rows.size(); ++K) {
    if (Print) { // printed after every site and loop line (emitTable)
      DepLines += "commhint: deps " + std::to_string(FirstLocal + K) + ":";
      for (const Dep &D : Rows[K])
        DepLines += " " + depText(D);
      DepLines += "\n";
    }
    Table.setSiteDeps(FirstLocal + K, entries(Rows[K]));
  }
}

// The site table as private constant data and a constructor registering it:
// __commhint_register_tu(ABI, blob, size, &site_base, &loop_base).
void Instrumenter::emitTable() {
  if (Print)
    errs() << DepLines;
  for (const auto &[Key, Deps] : Syms) {
    if (Print) {
      errs() << "commhint: symbol " << Key.first << " "
             << (Key.second == CHT_DEP_ARG_RET     ? "ret"
                 : Key.second == CHT_DEP_ARG_ENTRY ? "entry"
                                                   : "p" + std::to_string(Key.second))
             << ":";
      for (const Dep &D : Deps)
        errs() << " " << depText(D);
      errs() << "\n";
    }
    Table.addSymbolRow(Key.first, Key.second, entries(Deps));
  }
  std::vector<uint8_t> Blob = Table.serialize(
      M.getModuleIdentifier(), M.getDataLayout().isLittleEndian());
  Constant *Init = ConstantDataArray::get(Ctx, ArrayRef<uint8_t>(Blob));
  auto *BlobGV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                    GlobalValue::PrivateLinkage, Init,
                                    "__commhint_site_table");
  BlobGV->setAlignment(Align(8));

  Function *Ctor = Function::Create(FunctionType::get(Void, false),
                                    GlobalValue::InternalLinkage, CtorName, M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Ctor));
  B.CreateCall(
      runtime("__commhint_register_tu", Void, {I32, Ptr, I32, Ptr, Ptr}),
      {ConstantInt::get(I32, COMMHINT_RT_ABI_VERSION),
       ConstantExpr::getPointerCast(BlobGV, Ptr),
       ConstantInt::get(I32, Blob.size()),
       ConstantExpr::getPointerCast(base(SiteBaseName), Ptr),
       ConstantExpr::getPointerCast(base(LoopBaseName), Ptr)});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, CtorPriority);
}

// The addresses of the functions this module instruments that a call from
// another module (or through a pointer) may reach: a private constant array
// and a constructor calling __commhint_register_code(array, n), so that the
// runtime tells their calls from calls into code built without the pass
// (__commhint_extern_call).
void Instrumenter::emitCode(ArrayRef<Function *> Fns) {
  SmallVector<Constant *, 16> Addrs;
  for (Function *F : Fns) {
    // Only a call handing a pointer is checked: a function without a
    // pointer parameter (nor variadic ones) is never asked about.
    if (!F->isVarArg() &&
        llvm::none_of(F->args(), [](const Argument &A) {
          return A.getType()->isPointerTy();
        }))
      continue;
    // an inline function (linkonce) is defined by every module calling it
    // directly: only its address, when taken, can come from elsewhere
    if ((!F->hasLocalLinkage() && !F->hasLinkOnceLinkage()) ||
        F->hasAddressTaken())
      Addrs.push_back(ConstantExpr::getPointerCast(F, Ptr));
  }
  if (Addrs.empty())
    return;
  auto *Ty = ArrayType::get(Ptr, Addrs.size());
  auto *GV = new GlobalVariable(M, Ty, /*isConstant=*/true,
                                GlobalValue::PrivateLinkage,
                                ConstantArray::get(Ty, Addrs),
                                "__commhint_code");
  Function *Ctor = Function::Create(FunctionType::get(Void, false),
                                    GlobalValue::InternalLinkage,
                                    "commhint.code_ctor", M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Ctor));
  B.CreateCall(runtime("__commhint_register_code", Void, {Ptr, I32}),
               {ConstantExpr::getPointerCast(GV, Ptr),
                ConstantInt::get(I32, Addrs.size())});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, CtorPriority);
}

static bool isGenerated(const Function &F) {
  StringRef Name = F.getName();
  return Name.startswith("__commhint") || Name.startswith("commhint.");
}

PreservedAnalyses CommhintInstrumentPass::run(Module &M,
                                              ModuleAnalysisManager &) {
  // Already instrumented (the pass ran twice, e.g. in LTO): leave it.
  if (M.getGlobalVariable(SiteBaseName, /*AllowInternal=*/true) ||
      M.getFunction("commhint.code_ctor"))
    return PreservedAnalyses::all();

  Filter Flt;
  std::string Err;
  if (!Flt.addFromEnvironment(filterOptionValue(), Err)) {
    M.getContext().emitError(Err);
    return PreservedAnalyses::all();
  }

  // The library's code the program calls becomes the program's lines.
  bool Changed = inlineSystemCalls(M, Flt) != 0;
  Changed |= cloneSystemCallees(M, Flt) != 0;
  const SmallPtrSet<const Function *, 16> Unreached = unreachedSystemCopies(M);
  Instrumenter Ins(M, printSitesOption(), inlineFastPathOption());
  // The functions instrumented below: calls of any other function that
  // hand it the program's memory are checked at run time
  // (AccessAnalysis::setTraced, emitCode).
  DenseSet<const Function *> Traced;
  std::vector<Function *> TracedList;
  for (Function &F : M)
    if (!F.isDeclaration() && !isGenerated(F) &&
        !F.hasFnAttribute(Attribute::Naked) &&
        !F.hasAvailableExternallyLinkage() &&
        (programLocation(F) || Flt.shouldInstrument(F, M)) &&
        !Unreached.count(&F)) {
      Traced.insert(&F);
      TracedList.push_back(&F);
    }
  for (Function &F : M) {
    // Every function keeps a frame pointer: the runtime reads the call
    // path of an MPI call from the frame-pointer chain (tracelib/rt/
    // callpath.c).
    if (!F.isDeclaration() && !F.hasFnAttribute(Attribute::Naked) &&
        F.getFnAttribute("frame-pointer").getValueAsString() != "all") {
      F.addFnAttr("frame-pointer", "all");
      Changed = true;
    }
    // Not: declarations, our own functions, naked and available_externally
    // ones, library code (a clone of library code for a line goes with the
    // line's function), and library code that every call of the program
    // now has inlined or cloned for its line (this copy runs only where code
    // the pass did not see calls it, if the linker keeps it).
    if (!Traced.count(&F))
      continue;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    // Preheaders and dedicated exits give enter/exit calls a place.
    SmallVector<Loop *, 8> TopLevel(LI.begin(), LI.end());
    for (Loop *L : TopLevel)
      Changed |= simplifyLoop(L, &DT, &LI, /*SE=*/nullptr, /*AC=*/nullptr,
                              /*MSSAU=*/nullptr, /*PreserveLCSSA=*/false);
    PostDominatorTree PDT(F);
    AccessAnalysis AA(F, LI, PDT);
    AA.setTraced(&Traced);
    FunctionPlan Plan = AA.run();
    // Dependences are read off the IR before instrumenting changes it.
    uint32_t FirstLocal = Ins.numSites();
    std::vector<std::vector<Dep>> Deps =
        DepAnalysis(F, Plan, FirstLocal, PDT).run(Ins.symbols());
    std::vector<ExitRecordedLoop> AtExit;
    if (exitLoopsOption() && llvm::any_of(Plan.Loops, [](const LoopDesc &D) {
          return D.Preheader != nullptr;
        })) {
      TargetLibraryInfoImpl TLII(Triple(M.getTargetTriple()));
      TargetLibraryInfo TLI(TLII, &F);
      AssumptionCache AC(F);
      ScalarEvolution SE(F, TLI, AC, DT, LI);
      AtExit = findExitRecordedLoops(F, Plan, SE);
    }
    Ins.instrument(F, Plan, AtExit);
    Ins.addDeps(FirstLocal, Deps);
  }
  Ins.emitCode(TracedList);
  if (Ins.empty())
    return TracedList.empty() && !Changed ? PreservedAnalyses::all()
                                          : PreservedAnalyses::none();
  Ins.emitTable();
  return PreservedAnalyses::none();
}

} // namespace commhint
