//===- AccessAnalysis.cpp - what the commhint pass records ----------------===//
//
// Decides which accesses matter and how they group into sites; see
// AccessAnalysis.h.  Read-only on the IR.
//
//===----------------------------------------------------------------------===//

#include "AccessAnalysis.h"
#include "SiteCost.h"
#include "SystemCode.h"

#include "mpi-local.h"
#include "trace-format.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <tuple>

using namespace llvm;

namespace commhint {

AccessAnalysis::AccessAnalysis(Function &F, LoopInfo &LI,
                               PostDominatorTree &PDT)
    : F(F), LI(LI), PDT(PDT), DL(F.getParent()->getDataLayout()) {
  DefaultFile = sourcePath(F.getSubprogram());
  if (DefaultFile.empty())
    DefaultFile = F.getParent()->getSourceFileName();
}

std::string AccessAnalysis::fileOf(const DILocation *Loc) {
  return Loc ? sourcePath(Loc->getScope()) : "";
}

static const Function *directCallee(const CallBase &CB) {
  return dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
}

bool AccessAnalysis::isMPICall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  const Function *Callee = directCallee(*CB);
  if (!Callee)
    return false;
  StringRef Name = Callee->getName();
  return Name.startswith("MPI_") || Name.startswith("PMPI_");
}

bool AccessAnalysis::isClockCall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  const Function *Callee = CB ? directCallee(*CB) : nullptr;
  return Callee && cht_is_clock(Callee->getName().str().c_str());
}

// The standard streams: library state, not the program's memory (a
// fprintf(stderr, ...) reads the program only through its other arguments).
static bool isStdStream(const GlobalVariable *GV) {
  static const char *const Names[] = {
      "stdin",      "stdout",     "stderr",     "_ZSt3cin",  "_ZSt4cout",
      "_ZSt4cerr",  "_ZSt4clog",  "_ZSt4wcin",  "_ZSt5wcout", "_ZSt5wcerr",
      "_ZSt5wclog", "_IO_2_1_stdout_", "_IO_2_1_stderr_"};
  return GV->isDeclaration() &&
         llvm::is_contained(Names, GV->getName());
}

// C++'s replaceable allocation functions: operator new and new[] (plain,
// nothrow, aligned: the size first) and operator delete and delete[]
// (plain, sized, aligned: the block first).
static bool isCxxNew(StringRef N) {
  return N.startswith("_Znwm") || N.startswith("_Znam") ||
         N.startswith("_Znwj") || N.startswith("_Znaj");
}
static bool isCxxDelete(StringRef N) {
  return N.startswith("_ZdlPv") || N.startswith("_ZdaPv");
}

// Runtime entry points that hand the program's memory only to code the pass
// compiled, or only release it: the OpenMP runtime (an outlined parallel
// region, a reduction function), the C++ ABI (static guards, atexit,
// exceptions) and operator delete (a heap site of its own).
static bool isRuntimeEntry(const Function *Callee) {
  if (!Callee)
    return false;
  StringRef N = Callee->getName();
  return N.startswith("__kmpc_") || N.startswith("GOMP_") ||
         N.startswith("omp_") || N.startswith("__cxa_") ||
         N.startswith("_ZdlPv") || N.startswith("_ZdaPv") ||
         N.startswith("__commhint");
}

bool AccessAnalysis::handsProgramPointer(const CallBase &CB) {
  if (isRuntimeEntry(
          dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts())))
    return false;
  auto LibraryOnly = [](const Value *Obj) {
    if (isa<ConstantPointerNull>(Obj) || isa<UndefValue>(Obj) ||
        isa<Function>(Obj))
      return true;
    if (const auto *GV = dyn_cast<GlobalVariable>(Obj))
      return GV->isConstant() || isStdStream(GV);
    if (const auto *LI = dyn_cast<LoadInst>(Obj))
      if (const auto *GV = dyn_cast<GlobalVariable>(
              LI->getPointerOperand()->stripPointerCasts()))
        return isStdStream(GV);
    return false;
  };
  for (const Value *Arg : CB.args()) {
    auto *PtrTy = dyn_cast<PointerType>(Arg->getType());
    if (!PtrTy || PtrTy->getAddressSpace() != 0)
      continue;
    // through selects and phis: `ok ? "ok" : "FAILED"` is constant data
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Arg, Objs);
    if (!llvm::all_of(Objs, LibraryOnly))
      return true;
  }
  return false;
}

bool AccessAnalysis::isInterestingPointer(const Value *Ptr, bool IsWrite) {
  auto *PtrTy = dyn_cast<PointerType>(Ptr->getType()->getScalarType());
  if (!PtrTy || PtrTy->getAddressSpace() != 0)
    return false;
  const Value *Obj = getUnderlyingObject(Ptr);
  if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
    // Constant data cannot change; compiler-made globals are not the
    // program's data.
    if (GV->isConstant() && !IsWrite)
      return false;
    StringRef Name = GV->getName();
    if (Name.startswith("llvm.") || Name.startswith("__llvm_") ||
        Name.startswith("__commhint_"))
      return false;
    return true;
  }
  if (isa<AllocaInst>(Obj)) {
    // Like ThreadSanitizer's isEscapingLocal: a local nobody else can see
    // (loop counters, temporaries) cannot take part in communication.
    auto It = EscapingAlloca.find(Obj);
    if (It == EscapingAlloca.end())
      It = EscapingAlloca
               .insert({Obj, isEscapingAlloca(cast<AllocaInst>(Obj))})
               .first;
    return It->second;
  }
  return true;
}

// Captured, or handed to a function: a callee that does not capture its
// parameter (`nocapture`, which -O2 infers) still reads and writes through
// it, and its accesses are traced; the caller's must be too, or the
// dependence between them is lost.  Intrinsics (memcpy, lifetime markers)
// are not functions here: a memcpy is a site of its own.
bool AccessAnalysis::isEscapingAlloca(const AllocaInst *AI) {
  if (PointerMayBeCaptured(AI, /*ReturnCaptures=*/true, /*StoreCaptures=*/true))
    return true;
  SmallVector<const Value *, 8> Work{AI};
  SmallPtrSet<const Value *, 8> Seen{AI};
  for (size_t W = 0; W < Work.size(); ++W)
    for (const User *U : Work[W]->users()) {
      if (isa<GetElementPtrInst>(U) || isa<CastInst>(U) || isa<PHINode>(U) ||
          isa<SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (const auto *CB = dyn_cast<CallBase>(U))
        if (!isa<IntrinsicInst>(CB) && CB->hasArgument(Work[W]))
          return true;
    }
  return false;
}

bool AccessAnalysis::describeAccess(Instruction &I, Access &A) {
  Type *Ty = nullptr;
  bool IsWrite = false;
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    A.Ptr = LI->getPointerOperand();
    Ty = LI->getType();
    A.Flags = CHT_ACCESS_READ;
  } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
    A.Ptr = SI->getPointerOperand();
    Ty = SI->getValueOperand()->getType();
    A.Flags = CHT_ACCESS_WRITE;
    IsWrite = true;
  } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    A.Ptr = RMW->getPointerOperand();
    Ty = RMW->getValOperand()->getType();
    A.Flags = CHT_ACCESS_READ | CHT_ACCESS_WRITE;
    IsWrite = true;
  } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
    A.Ptr = CX->getPointerOperand();
    Ty = CX->getNewValOperand()->getType();
    A.Flags = CHT_ACCESS_READ | CHT_ACCESS_WRITE;
    IsWrite = true;
  } else {
    return false;
  }
  TypeSize TS = DL.getTypeStoreSize(Ty);
  if (TS.isScalable() || TS.getFixedValue() == 0 ||
      TS.getFixedValue() > UINT32_MAX)
    return false;
  A.Size = static_cast<uint32_t>(TS.getFixedValue());
  A.IsVector = Ty->isVectorTy();
  A.Inst = &I;
  return isInterestingPointer(A.Ptr, IsWrite);
}

// A call ends a statement's group unless it is a debug/lifetime-like
// intrinsic or an intrinsic that touches no memory (llvm.fmuladd in the
// middle of `a[i] = b[i] * c + d[i]`, llvm.smax, ...).
bool AccessAnalysis::endsGroup(const Instruction &I) const {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  if (const auto *II = dyn_cast<IntrinsicInst>(CB)) {
    if (II->isAssumeLikeIntrinsic())
      return false;
    if (!isa<MemIntrinsic>(II) && !II->mayReadOrWriteMemory())
      return false;
  }
  if (const Function *Callee = directCallee(*CB))
    if (Callee->getName().startswith("__commhint_"))
      return false;
  return true;
}

// The function a location is in as its source says: the inlined function
// for code inlined into F (so that regions and call paths name the
// function a person reads), else F.
static std::string sourceFunction(const Function &F, const DILocation *Loc) {
  if (Loc)
    if (const DISubprogram *SP = Loc->getScope()->getSubprogram())
      if (!SP->getName().empty())
        return SP->getName().str();
  return F.getName().str();
}

void AccessAnalysis::setLocation(Site &S, const DILocation *Loc,
                                 const BasicBlock *BB) {
  if (Loc && Loc->getInlinedAt())
    S.Flags |= CHT_SITEF_INLINED;
  // code from a system header is the program's line that called it
  Loc = programLocationIn(F, Loc);
  S.Func = sourceFunction(F, Loc);
  if (Loc) {
    S.File = fileOf(Loc);
    S.Line = Loc->getLine();
    S.Col = static_cast<uint16_t>(std::min<unsigned>(Loc->getColumn(), 0xffff));
  }
  if (S.File.empty())
    S.File = DefaultFile;
  if (Conditional.count(BB))
    S.Flags |= CHT_SITEF_CONDITIONAL;
  if (const Loop *L = LI.getLoopFor(BB))
    S.Loop = LoopIndex.lookup(L);
}

static const Value *stripCasts(const Value *V) {
  while (const auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  return V;
}

// Same value computed twice: at -O0 `a[i] += x` loads `i` and builds the
// address of a[i] once for the load and once for the store.  Two
// instructions of the same operation on equal operands are equal; two loads
// also need nothing that may write memory between them in their block.
static bool sameValue(const Value *A, const Value *B, unsigned Depth) {
  if (A == B)
    return true;
  const auto *IA = dyn_cast<Instruction>(A);
  const auto *IB = dyn_cast<Instruction>(B);
  if (!Depth || !IA || !IB || !IA->isSameOperationAs(IB) ||
      IA->getNumOperands() != IB->getNumOperands() || isa<PHINode>(IA) ||
      isa<CallBase>(IA) || IA->mayHaveSideEffects())
    return false;
  if (const auto *LA = dyn_cast<LoadInst>(IA)) {
    const auto *LB = cast<LoadInst>(IB);
    if (!LA->isSimple() || !LB->isSimple() ||
        LA->getParent() != LB->getParent())
      return false;
    const Instruction *First = LA->comesBefore(LB) ? LA : LB;
    const Instruction *Last = First == LA ? LB : LA;
    for (const Instruction *I = First->getNextNode(); I != Last;
         I = I->getNextNode())
      if (I->mayWriteToMemory())
        return false;
  }
  for (unsigned K = 0; K < IA->getNumOperands(); ++K)
    if (!sameValue(IA->getOperand(K), IB->getOperand(K), Depth - 1))
      return false;
  return true;
}

static bool samePointer(const Value *A, const Value *B) {
  return sameValue(A->stripPointerCasts(), B->stripPointerCasts(), 6);
}

static bool isLoadOf(const Value *V, const Value *Ptr) {
  const auto *Ld = dyn_cast<LoadInst>(stripCasts(V));
  return Ld && samePointer(Ld->getPointerOperand(), Ptr);
}

static uint8_t binaryOp(unsigned Opcode) {
  switch (Opcode) {
  case Instruction::Add:
    return CHT_SOP_ADD;
  case Instruction::Sub:
    return CHT_SOP_SUB;
  case Instruction::Mul:
    return CHT_SOP_MUL;
  case Instruction::SDiv:
  case Instruction::UDiv:
    return CHT_SOP_DIV;
  case Instruction::FAdd:
    return CHT_SOP_FADD;
  case Instruction::FSub:
    return CHT_SOP_FSUB;
  case Instruction::FMul:
    return CHT_SOP_FMUL;
  case Instruction::FDiv:
    return CHT_SOP_FDIV;
  case Instruction::And:
    return CHT_SOP_AND;
  case Instruction::Or:
    return CHT_SOP_OR;
  case Instruction::Xor:
    return CHT_SOP_XOR;
  default:
    return CHT_SOP_OTHER;
  }
}

// op and accumulate flag of a store of \p V to \p Ptr.  A copy is a store
// of a value loaded by the same statement from traced memory (at -O0 every
// variable is loaded; an untraced local is a value, as it is at -O2).
static void storedOp(const Value *V, const Value *Ptr, ArrayRef<Access> Group,
                     Site &S) {
  V = stripCasts(V);
  if (isa<LoadInst>(V)) {
    if (llvm::any_of(Group, [&](const Access &A) { return A.Inst == V; }))
      S.Op = CHT_SOP_COPY;
    return;
  }
  SmallVector<const Value *, 2> Operands;
  if (const auto *BO = dyn_cast<BinaryOperator>(V)) {
    S.Op = binaryOp(BO->getOpcode());
    Operands.assign({BO->getOperand(0), BO->getOperand(1)});
  } else if (const auto *II = dyn_cast<IntrinsicInst>(V)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::smin:
    case Intrinsic::umin:
      S.Op = CHT_SOP_MIN;
      break;
    case Intrinsic::smax:
    case Intrinsic::umax:
      S.Op = CHT_SOP_MAX;
      break;
    case Intrinsic::minnum:
    case Intrinsic::minimum:
      S.Op = CHT_SOP_FMIN;
      break;
    case Intrinsic::maxnum:
    case Intrinsic::maximum:
      S.Op = CHT_SOP_FMAX;
      break;
    case Intrinsic::fmuladd:
    case Intrinsic::fma:
      // s = a * b + s, contracted: an addition whose addend is operand 2.
      S.Op = CHT_SOP_FADD;
      if (isLoadOf(II->getArgOperand(2), Ptr))
        S.Flags |= CHT_SITEF_ACCUMULATE;
      return;
    default:
      return;
    }
    Operands.assign({II->getArgOperand(0), II->getArgOperand(1)});
  } else {
    return;
  }
  for (const Value *Op : Operands)
    if (isLoadOf(Op, Ptr))
      S.Flags |= CHT_SITEF_ACCUMULATE;
}

static void rmwOp(const AtomicRMWInst &RMW, Site &S) {
  S.Flags |= CHT_SITEF_ACCUMULATE;
  switch (RMW.getOperation()) {
  case AtomicRMWInst::Add:
    S.Op = CHT_SOP_ADD;
    break;
  case AtomicRMWInst::Sub:
    S.Op = CHT_SOP_SUB;
    break;
  case AtomicRMWInst::And:
    S.Op = CHT_SOP_AND;
    break;
  case AtomicRMWInst::Or:
    S.Op = CHT_SOP_OR;
    break;
  case AtomicRMWInst::Xor:
    S.Op = CHT_SOP_XOR;
    break;
  case AtomicRMWInst::Max:
  case AtomicRMWInst::UMax:
    S.Op = CHT_SOP_MAX;
    break;
  case AtomicRMWInst::Min:
  case AtomicRMWInst::UMin:
    S.Op = CHT_SOP_MIN;
    break;
  case AtomicRMWInst::FAdd:
    S.Op = CHT_SOP_FADD;
    break;
  case AtomicRMWInst::FSub:
    S.Op = CHT_SOP_FSUB;
    break;
  case AtomicRMWInst::FMax:
    S.Op = CHT_SOP_FMAX;
    break;
  case AtomicRMWInst::FMin:
    S.Op = CHT_SOP_FMIN;
    break;
  default: // xchg, nand, inc/dec wrap
    S.Flags &= ~CHT_SITEF_ACCUMULATE;
    S.Op = RMW.getOperation() == AtomicRMWInst::Xchg ? CHT_SOP_NONE
                                                     : CHT_SOP_OTHER;
    break;
  }
}

// Whether load \p Ld's value only becomes arguments of calls (through
// casts and address computations): the loads of a call's statement.
static bool onlyFeedsCalls(const Instruction *Ld) {
  SmallVector<const Value *, 8> Work{Ld};
  SmallPtrSet<const Value *, 8> Seen{Ld};
  for (size_t W = 0; W < Work.size(); ++W)
    for (const Use &U : Work[W]->uses()) {
      const User *Usr = U.getUser();
      if (isa<CastInst>(Usr) || isa<GetElementPtrInst>(Usr)) {
        if (Seen.insert(Usr).second)
          Work.push_back(Usr);
        continue;
      }
      const auto *CB = dyn_cast<CallBase>(Usr);
      if (!CB || !CB->isArgOperand(&U) || isa<IntrinsicInst>(CB))
        return false;
    }
  return true;
}

// Whether load \p Ld's value only reaches the condition of branches that
// leave a loop whose header is on source line \p Line (through arithmetic
// and comparisons): the test of a `for`/`while` header, not a `break` or
// `return` on data inside the body.
static bool onlyFeedsLoopExit(const Instruction *Ld, const LoopInfo &LI,
                              unsigned Line) {
  SmallVector<const Value *, 8> Work{Ld};
  SmallPtrSet<const Value *, 8> Seen{Ld};
  for (size_t W = 0; W < Work.size(); ++W)
    for (const User *U : Work[W]->users()) {
      if (const auto *BI = dyn_cast<BranchInst>(U)) {
        const Loop *L = LI.getLoopFor(BI->getParent());
        if (!BI->isConditional() || !L || !L->isLoopExiting(BI->getParent()) ||
            !L->getStartLoc() || L->getStartLoc().getLine() != Line)
          return false;
        continue;
      }
      if (isa<CmpInst>(U) || isa<CastInst>(U) || isa<BinaryOperator>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      return false;
    }
  return true;
}

void AccessAnalysis::finishGroup(FunctionPlan &Plan,
                                 SmallVectorImpl<Access> &Group) {
  if (Group.empty())
    return;
  Site S;
  S.Kind = CHT_SITE_COMP;
  // The statement is named after its first store (the assignment), or its
  // first access when it only reads.
  const Access *Rep = &Group.front();
  for (const Access &A : Group)
    if (A.Flags & CHT_ACCESS_WRITE) {
      Rep = &A;
      break;
    }
  setLocation(S, Rep->Inst->getDebugLoc().get(), Rep->Inst->getParent());
  for (const Access &A : Group) {
    if (A.Inst->isAtomic())
      S.Flags |= CHT_SITEF_ATOMIC;
    if (A.IsVector)
      S.Flags |= CHT_SITEF_VECTOR;
  }
  for (auto It = Group.rbegin(); It != Group.rend(); ++It) {
    if (auto *SI = dyn_cast<StoreInst>(It->Inst)) {
      storedOp(SI->getValueOperand(), SI->getPointerOperand(), Group, S);
      break;
    }
    if (auto *RMW = dyn_cast<AtomicRMWInst>(It->Inst)) {
      rmwOp(*RMW, S);
      break;
    }
    if (isa<AtomicCmpXchgInst>(It->Inst))
      break;
  }
  if (llvm::all_of(Group, [](const Access &A) {
        return isa<LoadInst>(A.Inst) && onlyFeedsCalls(A.Inst);
      }))
    S.Flags |= CHT_SITEF_ARGS_ONLY;
  else if (S.Line && llvm::all_of(Group, [&](const Access &A) {
             return isa<LoadInst>(A.Inst) &&
                    onlyFeedsLoopExit(A.Inst, LI, S.Line);
           }))
    S.Flags |= CHT_SITEF_LOOP_TEST;
  S.Accesses.assign(Group.begin(), Group.end());
  S.Anchor = Group.back().Inst;
  Plan.MaxAddrs = std::max<unsigned>(Plan.MaxAddrs, Group.size());
  Plan.Sites.push_back(std::move(S));
  Group.clear();
}

// Whether an argument of MPI call \p CB is the value of a local variable
// that \p F assigns where the trace shows no event: at -O2 a `dbg.value`
// of a non-parameter variable in F whose value is that argument (`mtype =
// FROM_WORKER` leaves the constant and a dbg.value of mtype; `dest = i` the
// loop's phi); at -O0 a load from an untraced local (its address never
// escapes) that is such a variable (its dbg.declare).  The store that sets
// it is no event, so the run cannot show a start crossing it.
static bool argFromRegisterVariable(const Function &F, const CallBase &CB) {
  for (const Use &A : CB.args()) {
    const Value *V = A.get()->stripPointerCasts();
    if (const auto *C = dyn_cast<CastInst>(V))
      V = C->getOperand(0);
    if (const auto *LI = dyn_cast<LoadInst>(V))
      if (const auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(LI->getPointerOperand())))
        if (!AccessAnalysis::isEscapingAlloca(AI))
          for (const DbgVariableIntrinsic *DI : FindDbgDeclareUses(const_cast<AllocaInst *>(AI)))
            if (DI->getVariable() && !DI->getVariable()->isParameter())
              return true;
    SmallVector<DbgValueInst *, 4> DVs;
    findDbgValues(DVs, const_cast<Value *>(V));
    for (const DbgValueInst *DV : DVs)
      if (DV->getFunction() == &F && DV->getVariable() && !DV->getVariable()->isParameter())
        return true;
  }
  return false;
}

void AccessAnalysis::addCallSite(FunctionPlan &Plan, Instruction &I,
                                 uint8_t Kind) {
  Site S;
  S.Kind = Kind;
  setLocation(S, I.getDebugLoc().get(), I.getParent());
  S.Anchor = &I;
  if (Kind == CHT_SITE_CALL && argFromRegisterVariable(F, cast<CallBase>(I)))
    S.Flags |= CHT_SITEF_ARG_VARS;
  Plan.Sites.push_back(std::move(S));
}

// The output arguments of the local MPI queries whose results programs
// compute with: a rank, a size, a neighbour, a count.  No wrapper records
// these calls (tracelib/mpi-local.h), so without a write of their outputs
// a statement that reads `rank` would seem to depend on nothing, and a
// call guarded by `if (rank > 0)` could be started before MPI_Comm_rank
// (LLNL's mpi_array).  Bytes per element; CountArg >= 0: that many
// elements (an int argument).
namespace {
struct QueryOut {
  const char *Name; // without MPI_
  int8_t Arg;
  uint8_t Bytes;
  int8_t CountArg;
};
const QueryOut QueryOuts[] = {
    {"Cart_coords", 3, 4, 2},      {"Cart_rank", 2, 4, -1},
    {"Cart_shift", 3, 4, -1},      {"Cart_shift", 4, 4, -1},
    {"Cartdim_get", 1, 4, -1},     {"Comm_compare", 2, 4, -1},
    {"Comm_rank", 1, 4, -1},       {"Comm_remote_size", 1, 4, -1},
    {"Comm_size", 1, 4, -1},       {"Comm_test_inter", 1, 4, -1},
    {"Dims_create", 2, 4, 1},      {"Finalized", 0, 4, -1},
    {"Get_address", 1, 8, -1},     {"Get_processor_name", 1, 4, -1},
    {"Graph_neighbors", 3, 4, 2},  {"Graph_neighbors_count", 2, 4, -1},
    {"Graphdims_get", 1, 4, -1},   {"Graphdims_get", 2, 4, -1},
    {"Group_rank", 1, 4, -1},      {"Group_size", 1, 4, -1},
    {"Initialized", 0, 4, -1},     {"Is_thread_main", 0, 4, -1},
    {"Op_commutative", 1, 4, -1},  {"Pack_size", 3, 4, -1},
    {"Query_thread", 0, 4, -1},    {"Topo_test", 1, 4, -1},
    {"Type_get_extent", 1, 8, -1}, {"Type_get_extent", 2, 8, -1},
    {"Type_get_true_extent", 1, 8, -1}, {"Type_get_true_extent", 2, 8, -1},
    {"Type_size", 1, 4, -1},       {"Type_size_c", 1, 8, -1},
    {"Type_size_x", 1, 8, -1},
};
} // namespace

void AccessAnalysis::addQueryOutputs(FunctionPlan &Plan, CallInst &CI,
                                     StringRef Name) {
  if (!Name.consume_front("MPI_"))
    Name.consume_front("PMPI_");
  for (const QueryOut &Q : QueryOuts) {
    if (Name != Q.Name || (unsigned)Q.Arg >= CI.arg_size())
      continue;
    Value *Dst = CI.getArgOperand(Q.Arg);
    Value *Count = Q.CountArg >= 0 && (unsigned)Q.CountArg < CI.arg_size()
                       ? CI.getArgOperand(Q.CountArg)
                       : nullptr;
    if (!Dst->getType()->isPointerTy() ||
        (Count && !Count->getType()->isIntegerTy()) ||
        (Q.CountArg >= 0 && !Count))
      continue;
    addCallSite(Plan, CI, CHT_SITE_MEMSET);
    Site &S = Plan.Sites.back();
    S.QueryOut = true;
    S.Dst = Dst;
    S.Len = ConstantInt::get(Type::getInt64Ty(CI.getContext()), Q.Bytes);
    S.Len2 = Count;
  }
}

void AccessAnalysis::computeLoops(FunctionPlan &Plan) {
  for (Loop *L : LI.getLoopsInPreorder()) {
    LoopDesc D;
    D.L = L;
    D.Func = F.getName().str();
    DebugLoc Loc = L->getStartLoc();
    if (!Loc)
      for (const Instruction &I : *L->getHeader())
        if ((Loc = I.getDebugLoc()))
          break;
    if (const DILocation *DIL = programLocationIn(F, Loc.get())) {
      D.Func = sourceFunction(F, DIL);
      D.File = fileOf(DIL);
      D.Line = DIL->getLine();
      D.Col =
          static_cast<uint16_t>(std::min<unsigned>(DIL->getColumn(), 0xffff));
    }
    if (D.File.empty())
      D.File = DefaultFile;
    D.Depth = static_cast<uint16_t>(L->getLoopDepth());
    D.Parent = L->getParentLoop() ? LoopIndex.lookup(L->getParentLoop()) : -1;
    D.Preheader = L->getLoopPreheader();
    D.Header = L->getHeader();
    LoopIndex[L] = Plan.Loops.size();
    Plan.Loops.push_back(std::move(D));
  }

  // One exit call per exit block, naming the outermost loop its incoming
  // edges leave.  With dedicated exits all predecessors are inside the loop,
  // so that loop does not depend on which edge is taken.
  SmallPtrSet<BasicBlock *, 16> Seen;
  for (const LoopDesc &D : Plan.Loops) {
    if (!D.Preheader)
      continue;
    SmallVector<BasicBlock *, 4> ExitBlocks;
    D.L->getUniqueExitBlocks(ExitBlocks);
    for (BasicBlock *E : ExitBlocks) {
      if (!Seen.insert(E).second)
        continue;
      if (!llvm::all_of(predecessors(E),
                        [&](BasicBlock *P) { return D.L->contains(P); }))
        continue; // not a dedicated exit (simplification failed)
      Loop *Outer = D.L;
      Loop *Named = D.L;
      while (Outer->getParentLoop() && !Outer->getParentLoop()->contains(E)) {
        Outer = Outer->getParentLoop();
        if (Plan.Loops[LoopIndex.lookup(Outer)].Preheader)
          Named = Outer; // only instrumented loops are on the stack
      }
      Plan.Exits.push_back({E, LoopIndex.lookup(Named)});
    }
  }
}

// Loop control versus real decisions.  A site is CONDITIONAL when its block
// is control dependent on a branch that is a source-level decision.  Two
// kinds of branches are loop control and are not: a loop's exiting branches
// (its own exit test, also `break`/`return` inside it), and the guard that
// loop rotation puts in front of a rotated loop (the copy of its first exit
// test, `n > 0` for `for (i = 0; i < n; i++)`), wherever later passes left
// it.  Control dependence passes through loop control: a block control
// dependent on a loop's exit test or guard is conditional exactly when the
// branch's own block is (the body of a loop inside an `if` is conditional,
// the body of a loop that always runs is not).

// The SCEV of \p V; a phi outside the loop header whose incoming values all
// have the same SCEV (the increment `i + 1` that -O2 duplicates on both
// sides of an inner loop's guard) is that SCEV.  SCEV does not see through
// such a phi, so it does not see the counter it feeds back into as an add
// recurrence either; that is rebuilt here: a header phi h whose value from
// the latch is h + c, and \p V = h + k, is {start + k,+,c}.
static const SCEV *scevOf(ScalarEvolution &SE, const Loop &L, Value *V,
                          bool Rebuild = true) {
  const SCEV *S = SE.getSCEV(V);
  if (auto *PN = dyn_cast<PHINode>(V))
    if (isa<SCEVUnknown>(S) && PN->getParent() != L.getHeader() &&
        PN->getNumIncomingValues() > 0) {
      const SCEV *Common = SE.getSCEV(PN->getIncomingValue(0));
      if (llvm::all_of(PN->incoming_values(), [&](Value *In) {
            return In != PN && SE.getSCEV(In) == Common;
          }))
        S = Common;
    }
  if (!Rebuild || isa<SCEVAddRecExpr>(S) || !S->getType()->isIntegerTy())
    return S;
  const BasicBlock *PH = L.getLoopPreheader();
  const BasicBlock *Latch = L.getLoopLatch();
  if (!PH || !Latch)
    return S;
  for (PHINode &PN : L.getHeader()->phis()) {
    if (PN.getType() != S->getType() || PN.getBasicBlockIndex(PH) < 0 ||
        PN.getBasicBlockIndex(Latch) < 0)
      continue;
    const SCEV *H = SE.getSCEV(&PN);
    if (!isa<SCEVUnknown>(H))
      continue;
    const auto *K = dyn_cast<SCEVConstant>(SE.getMinusSCEV(S, H));
    const auto *C = dyn_cast<SCEVConstant>(SE.getMinusSCEV(
        scevOf(SE, L, PN.getIncomingValueForBlock(Latch), false), H));
    if (!K || !C || C->isZero())
      continue;
    const SCEV *Start = SE.getSCEV(PN.getIncomingValueForBlock(PH));
    return SE.getAddRecExpr(SE.getAddExpr(Start, K), C, &L, SCEV::FlagAnyWrap);
  }
  return S;
}

// For `A pred B`: an expression that is positive exactly when the
// comparison holds, for the predicates a counted loop's test uses
// (b - a for a < b, b - a + 1 for a <= b); null for others.
static const SCEV *distanceOf(ScalarEvolution &SE, CmpInst::Predicate Pred,
                              const SCEV *A, const SCEV *B) {
  if (!A->getType()->isIntegerTy() || A->getType() != B->getType())
    return nullptr;
  const SCEV *One = SE.getOne(A->getType());
  switch (Pred) {
  case CmpInst::ICMP_SLT:
  case CmpInst::ICMP_ULT:
  case CmpInst::ICMP_NE:
    return SE.getMinusSCEV(B, A);
  case CmpInst::ICMP_SLE:
  case CmpInst::ICMP_ULE:
    return SE.getAddExpr(SE.getMinusSCEV(B, A), One);
  case CmpInst::ICMP_SGT:
  case CmpInst::ICMP_UGT:
    return SE.getMinusSCEV(A, B);
  case CmpInst::ICMP_SGE:
  case CmpInst::ICMP_UGE:
    return SE.getAddExpr(SE.getMinusSCEV(A, B), One);
  default:
    return nullptr;
  }
}

// Whether \p X and \p Y are equal modulo 2^w, w the narrower width (the
// guard is often on the source's `int`, the latch on the widened i64).
static bool sameModWidth(ScalarEvolution &SE, const SCEV *X, const SCEV *Y) {
  unsigned WX = SE.getTypeSizeInBits(X->getType());
  unsigned WY = SE.getTypeSizeInBits(Y->getType());
  if (WX > WY)
    X = SE.getTruncateExpr(X, Y->getType());
  else if (WY > WX)
    Y = SE.getTruncateExpr(Y, X->getType());
  return SE.getMinusSCEV(X, Y)->isZero();
}

// A value the guard read from memory: a load, or phis of loads of one
// address (GVN merges the reloads after error paths that call functions).
struct GuardLoad {
  const Value *Ptr;
  Value *V;
};

static const Value *loadedFrom(const Value *V, unsigned Depth) {
  if (const auto *Ld = dyn_cast<LoadInst>(V))
    return Ld->isSimple() ? Ld->getPointerOperand() : nullptr;
  const auto *PN = dyn_cast<PHINode>(V);
  if (!PN || !Depth || PN->getNumIncomingValues() == 0)
    return nullptr;
  const Value *Ptr = nullptr;
  for (const Value *In : PN->incoming_values()) {
    if (In == PN)
      continue;
    const Value *P = loadedFrom(In, Depth - 1);
    if (!P || (Ptr && !samePointer(P, Ptr)))
      return nullptr;
    Ptr = P;
  }
  return Ptr;
}

static void addGuardLoad(Value *V, SmallVectorImpl<GuardLoad> &Out) {
  V = const_cast<Value *>(stripCasts(V));
  if (const Value *Ptr = loadedFrom(V, 4))
    Out.push_back({Ptr, V});
}

// Replaces, in an expression of the latch test, a load inside the loop by
// the guard's read of the same address: the loop's first test reads the
// bound on entry (`q < size` with `size` reloaded every iteration because
// the body may write it), and that first read is the one the guard made.
namespace {
struct EntryValueRewriter : SCEVRewriteVisitor<EntryValueRewriter> {
  const Loop &L;
  ArrayRef<GuardLoad> GuardLoads;
  EntryValueRewriter(ScalarEvolution &SE, const Loop &L,
                     ArrayRef<GuardLoad> GuardLoads)
      : SCEVRewriteVisitor(SE), L(L), GuardLoads(GuardLoads) {}
  const SCEV *visitUnknown(const SCEVUnknown *U) {
    const auto *Ld = dyn_cast<LoadInst>(U->getValue());
    if (!Ld || !L.contains(Ld) || !Ld->isSimple() ||
        !L.isLoopInvariant(Ld->getPointerOperand()))
      return U;
    for (const GuardLoad &G : GuardLoads)
      if (G.V->getType() == Ld->getType() &&
          samePointer(G.Ptr, Ld->getPointerOperand()))
        return SE.getSCEV(G.V);
    return U;
  }
};
} // namespace

// The distance of the test that decides whether rotated loop \p L runs at
// all, as its source header wrote it: the latch's exit test `x pred y` with
// x = {s,+,st} evaluated one step before its first value, s - st, and y's
// loads as the guard made them (\p GuardLoads).  Exact for unit steps
// (`i < n` and its LFTR form `i.next != n'` give the same distance); for
// other steps the sign is still right.  Null when the latch test is not of
// that form.
static const SCEV *loopEntryDistance(ScalarEvolution &SE, const Loop &L,
                                     ArrayRef<GuardLoad> GuardLoads) {
  const BasicBlock *Latch = L.getLoopLatch();
  const auto *BI =
      Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  if (!BI || !BI->isConditional())
    return nullptr;
  auto *Cmp = dyn_cast<ICmpInst>(BI->getCondition());
  if (!Cmp)
    return nullptr;
  CmpInst::Predicate Pred = Cmp->getPredicate();
  if (!L.contains(BI->getSuccessor(0)))
    Pred = CmpInst::getInversePredicate(Pred); // now: continue while Pred
  const SCEV *X = scevOf(SE, L, Cmp->getOperand(0));
  const SCEV *Y = scevOf(SE, L, Cmp->getOperand(1));
  if (!isa<SCEVAddRecExpr>(X) && isa<SCEVAddRecExpr>(Y)) {
    std::swap(X, Y);
    Pred = CmpInst::getSwappedPredicate(Pred);
  }
  const auto *AR = dyn_cast<SCEVAddRecExpr>(X);
  if (!AR || AR->getLoop() != &L || !AR->isAffine() ||
      !AR->getType()->isIntegerTy() || AR->getType() != Y->getType())
    return nullptr;
  Y = EntryValueRewriter(SE, L, GuardLoads).visit(Y);
  if (!SE.isLoopInvariant(Y, &L))
    return nullptr;
  const auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
  if (!Step || Step->isZero())
    return nullptr;
  const SCEV *Before = SE.getMinusSCEV(AR->getStart(), Step);
  if (Step->getAPInt().isNegative()) {
    // Counting down: continue while x > y is y < x.
    std::swap(Before, Y);
    Pred = CmpInst::getSwappedPredicate(Pred);
  }
  if (Pred == CmpInst::ICMP_NE && !Step->getAPInt().isOne() &&
      !Step->getAPInt().isAllOnes())
    return nullptr; // `!=` skips over the bound with larger steps
  return distanceOf(SE, Pred, Before, Y);
}

// Whether \p Cmp (in the guard, entering the loop when it is \p EnterIf) is
// a copy of rotated loop \p L's latch test with each header phi replaced by
// its value on entry: what loop rotation made before other passes rewrote
// it, and what stays for loops SCEV cannot count (`while (p)`).
static bool isRotatedCopy(const Loop &L, const ICmpInst &Cmp, bool EnterIf) {
  const BasicBlock *Latch = L.getLoopLatch();
  const BasicBlock *Header = L.getHeader();
  const auto *BI = dyn_cast<BranchInst>(Latch->getTerminator());
  if (!BI || !BI->isConditional())
    return false;
  const auto *LCmp = dyn_cast<ICmpInst>(BI->getCondition());
  if (!LCmp)
    return false;
  bool ContinueIf = L.contains(BI->getSuccessor(0));
  CmpInst::Predicate Want = LCmp->getPredicate();
  if (ContinueIf != EnterIf)
    Want = CmpInst::getInversePredicate(Want);
  auto Matches = [&](const Value *G, const Value *V) {
    if (G == V)
      return L.isLoopInvariant(V);
    for (const PHINode &PN : Header->phis()) {
      int In = PN.getBasicBlockIndex(Latch);
      if (In >= 0 && PN.getIncomingValue(In) == V &&
          PN.getIncomingValueForBlock(L.getLoopPreheader()) == G)
        return true;
    }
    return false;
  };
  if (Cmp.getPredicate() == Want &&
      Matches(Cmp.getOperand(0), LCmp->getOperand(0)) &&
      Matches(Cmp.getOperand(1), LCmp->getOperand(1)))
    return true;
  return Cmp.getPredicate() == CmpInst::getSwappedPredicate(Want) &&
         Matches(Cmp.getOperand(1), LCmp->getOperand(0)) &&
         Matches(Cmp.getOperand(0), LCmp->getOperand(1));
}

// No code that could be a site: only arithmetic, phis and debug intrinsics.
static bool hasNoSites(const BasicBlock &BB) {
  for (const Instruction &I : BB) {
    if (const auto *II = dyn_cast<IntrinsicInst>(&I))
      if (II->isAssumeLikeIntrinsic())
        continue;
    if (I.mayReadOrWriteMemory())
      return false;
  }
  return true;
}

// The guard of rotated loop \p L: the first conditional branch above its
// preheader in the dominator tree (through straight-line blocks, so also
// through the header of an enclosing loop and its preheader when the guard
// was hoisted past it), such that
//  - one edge (Enter) dominates L's header,
//  - the other (Skip) leads, through blocks without sites, to a block that
//    post-dominates the block L's latch exits to: skipping only skips the
//    loop (the jump to the enclosing loop's latch that -O2 puts around an
//    inner loop qualifies),
//  - and its condition is the loop's own first test: a copy of the latch
//    test (isRotatedCopy), or a comparison whose distance equals the loop's
//    (`n > 2` guarding `for (j = 1; j < n - 1; j++)`).  An `if (x)` around a
//    loop, `if (n > 5)` around `for (j = 0; j < n; j++)`, or a guard merged
//    with an `if` (`x != 0 & n > 0`) decide more and stay real.
static const BranchInst *loopGuard(const Loop &L, const DominatorTree &DT,
                                   const PostDominatorTree &PDT,
                                   ScalarEvolution &SE) {
  const BasicBlock *PH = L.getLoopPreheader();
  const BasicBlock *Latch = L.getLoopLatch();
  if (!PH || !Latch || !L.isRotatedForm())
    return nullptr;
  const BasicBlock *LatchExit = nullptr;
  for (const BasicBlock *S : successors(Latch))
    if (!L.contains(S))
      LatchExit = S;
  if (!LatchExit)
    return nullptr;

  const BranchInst *BI = nullptr;
  const DomTreeNode *N = DT.getNode(PH);
  for (unsigned Steps = 0; N && Steps < 16; ++Steps) {
    N = N->getIDom();
    if (!N)
      return nullptr;
    const Instruction *T = N->getBlock()->getTerminator();
    if (T->getNumSuccessors() == 1)
      continue;
    BI = dyn_cast<BranchInst>(T);
    break;
  }
  if (!BI || !BI->isConditional() || BI->getSuccessor(0) == BI->getSuccessor(1))
    return nullptr;
  const BasicBlock *G = BI->getParent();
  unsigned EnterIdx;
  if (DT.dominates(BasicBlockEdge(G, BI->getSuccessor(0)), L.getHeader()))
    EnterIdx = 0;
  else if (DT.dominates(BasicBlockEdge(G, BI->getSuccessor(1)), L.getHeader()))
    EnterIdx = 1;
  else
    return nullptr;

  const BasicBlock *S = BI->getSuccessor(1 - EnterIdx);
  for (unsigned Steps = 0;; ++Steps) {
    if (L.contains(S) || Steps == 8)
      return nullptr;
    if (PDT.dominates(S, LatchExit))
      break;
    if (!hasNoSites(*S) || !S->getSingleSuccessor())
      return nullptr;
    S = S->getSingleSuccessor();
  }

  const auto *Cmp = dyn_cast<ICmpInst>(BI->getCondition());
  if (!Cmp)
    return nullptr;
  bool EnterIf = EnterIdx == 0;
  if (isRotatedCopy(L, *Cmp, EnterIf))
    return BI;
  if (!Cmp->getOperand(0)->getType()->isIntegerTy())
    return nullptr;
  CmpInst::Predicate Pred =
      EnterIf ? Cmp->getPredicate() : Cmp->getInversePredicate();
  SmallVector<GuardLoad, 2> GuardLoads;
  for (Value *Op : Cmp->operands())
    addGuardLoad(Op, GuardLoads);
  const SCEV *LoopDist = loopEntryDistance(SE, L, GuardLoads);
  const SCEV *Guard = distanceOf(SE, Pred, SE.getSCEV(Cmp->getOperand(0)),
                                 SE.getSCEV(Cmp->getOperand(1)));
  if (!LoopDist || !Guard)
    return nullptr;
  if (sameModWidth(SE, LoopDist, Guard))
    return BI;
  // `n != 0` reads either way round.
  if (Pred == CmpInst::ICMP_NE &&
      sameModWidth(SE, LoopDist, SE.getNegativeSCEV(Guard)))
    return BI;
  return nullptr;
}

// The distinct successors of a branch (br, switch, indirectbr) that
// decides between two or more of them; false for any other block.
static bool decisionSuccessors(BasicBlock &A,
                               SmallPtrSetImpl<BasicBlock *> &Succs) {
  const Instruction *T = A.getTerminator();
  if (!T ||
      !(isa<BranchInst>(T) || isa<SwitchInst>(T) || isa<IndirectBrInst>(T)))
    return false;
  Succs.insert(succ_begin(&A), succ_end(&A));
  return Succs.size() >= 2;
}

void AccessAnalysis::forEachControlDependence(
    Function &F, PostDominatorTree &PDT,
    function_ref<void(const BasicBlock *, const BasicBlock *)> Fn) {
  for (BasicBlock &A : F) {
    SmallPtrSet<BasicBlock *, 4> Succs;
    if (!decisionSuccessors(A, Succs))
      continue;
    DomTreeNode *AN = PDT.getNode(&A);
    if (!AN)
      continue;
    DomTreeNode *Stop = AN->getIDom();
    for (BasicBlock *S : Succs)
      for (DomTreeNode *N = PDT.getNode(S); N && N != Stop && N->getBlock();
           N = N->getIDom())
        Fn(&A, N->getBlock());
  }
}

namespace {
// Post-dominators over the blocks that can reach a `ret`.  A branch whose
// other side only leaves the function abnormally (exit() or abort(): a
// noreturn call and `unreachable`; a throw out of the function: `resume`)
// decides nothing for the code that goes on to return: after
// `if (n <= 0) { fprintf(...); exit(1); }` every statement runs on every
// path that finishes, and is not "conditional".  LLVM's post-dominator
// tree counts those ends as exits, so nothing after such a check
// post-dominates it; this one is built on the returning blocks alone
// (Cooper, Harvey and Kennedy's iterative algorithm on the reverse CFG,
// with a virtual exit, index 0, before every `ret`).
class ReturningPostDom {
public:
  explicit ReturningPostDom(Function &F) {
    SmallVector<const BasicBlock *, 16> Work;
    for (BasicBlock &B : F)
      if (isa<ReturnInst>(B.getTerminator()) && Returning.insert(&B).second)
        Work.push_back(&B);
    while (!Work.empty())
      for (const BasicBlock *P : predecessors(Work.pop_back_val()))
        if (Returning.insert(P).second)
          Work.push_back(P);
    if (Returning.empty())
      return;
    number(F);
    solve();
  }
  bool empty() const { return Returning.empty(); }
  bool returns(const BasicBlock *B) const { return Returning.count(B); }
  // The immediate post-dominator among the returning blocks (nullptr: the
  // virtual exit).
  const BasicBlock *ipdom(const BasicBlock *B) const {
    auto It = Index.find(B);
    return It == Index.end() ? nullptr : Blocks[IDom[It->second]];
  }

private:
  // Post-order of the reverse CFG from the virtual exit (Blocks[0]).
  void number(Function &F) {
    Blocks.push_back(nullptr);
    SmallVector<std::pair<const BasicBlock *, const_pred_iterator>, 32> Stack;
    SmallPtrSet<const BasicBlock *, 32> Seen;
    SmallVector<const BasicBlock *, 32> Order;
    for (BasicBlock &R : F) {
      const BasicBlock *RB = &R;
      if (!isa<ReturnInst>(RB->getTerminator()) || !Seen.insert(RB).second)
        continue;
      Stack.push_back({RB, pred_begin(RB)});
      while (!Stack.empty()) {
        auto &[B, It] = Stack.back();
        if (It == pred_end(B)) {
          Order.push_back(B);
          Stack.pop_back();
          continue;
        }
        const BasicBlock *P = *It++;
        if (Seen.insert(P).second)
          Stack.push_back({P, pred_begin(P)});
      }
    }
    for (const BasicBlock *B : Order) { // post-order numbers 1..n
      Index[B] = Blocks.size();
      Blocks.push_back(B);
    }
  }
  unsigned intersect(unsigned A, unsigned B) const {
    // the virtual exit, 0, is the root: it is numbered last in post-order
    auto PO = [](unsigned X) { return X == 0 ? ~0u : X; };
    while (A != B) {
      while (PO(A) < PO(B))
        A = IDom[A];
      while (PO(B) < PO(A))
        B = IDom[B];
    }
    return A;
  }
  void solve() {
    const unsigned Undef = ~0u;
    IDom.assign(Blocks.size(), Undef);
    IDom[0] = 0;
    for (bool Changed = true; Changed;) {
      Changed = false;
      // reverse post-order: the highest post-order numbers first
      for (unsigned I = Blocks.size() - 1; I >= 1; --I) {
        const BasicBlock *B = Blocks[I];
        unsigned New = isa<ReturnInst>(B->getTerminator()) ? 0 : Undef;
        for (const BasicBlock *S : successors(B)) {
          auto It = Index.find(S);
          if (It == Index.end() || IDom[It->second] == Undef)
            continue;
          New = New == Undef ? It->second : intersect(It->second, New);
        }
        if (New != Undef && IDom[I] != New) {
          IDom[I] = New;
          Changed = true;
        }
      }
    }
  }

  SmallPtrSet<const BasicBlock *, 32> Returning;
  DenseMap<const BasicBlock *, unsigned> Index;
  SmallVector<const BasicBlock *, 32> Blocks;
  SmallVector<unsigned, 32> IDom;
};
} // namespace

void AccessAnalysis::forEachReturningControlDependence(
    Function &F, PostDominatorTree &PDT,
    function_ref<void(const BasicBlock *, const BasicBlock *)> Fn) {
  ReturningPostDom RPD(F);
  if (RPD.empty()) { // the function never returns: every end counts
    forEachControlDependence(F, PDT, Fn);
    return;
  }
  for (BasicBlock &A : F) {
    SmallPtrSet<BasicBlock *, 4> Succs;
    if (!decisionSuccessors(A, Succs))
      continue;
    // the blocks that cannot return, reached from A's other sides: they
    // run only where A went that way (an error exit's message)
    SmallVector<const BasicBlock *, 8> Work;
    SmallPtrSet<const BasicBlock *, 8> Seen;
    for (BasicBlock *S : Succs)
      if (!RPD.returns(S) && Seen.insert(S).second)
        Work.push_back(S);
    while (!Work.empty()) {
      const BasicBlock *N = Work.pop_back_val();
      Fn(&A, N);
      for (const BasicBlock *X : successors(N))
        if (!RPD.returns(X) && Seen.insert(X).second)
          Work.push_back(X);
    }
    if (!RPD.returns(&A))
      continue;
    const BasicBlock *Stop = RPD.ipdom(&A);
    for (BasicBlock *S : Succs)
      if (RPD.returns(S))
        for (const BasicBlock *N = S; N && N != Stop; N = RPD.ipdom(N))
          Fn(&A, N);
  }
}

// Blocks control dependent on a real decision: for a branch block A and
// each successor S, the blocks on the post-dominator-tree path from S up to,
// excluding, ipdom(A) depend on A.  A real branch makes them conditional; a
// loop-control branch (exiting branch or guard) makes them conditional when
// A itself is.
void AccessAnalysis::computeConditionalBlocks() {
  SmallPtrSet<const BasicBlock *, 8> Guards;
  if (!LI.empty()) {
    DominatorTree DT(F);
    TargetLibraryInfoImpl TLII(Triple(F.getParent()->getTargetTriple()));
    TargetLibraryInfo TLI(TLII, &F);
    AssumptionCache AC(F);
    ScalarEvolution SE(F, TLI, AC, DT, LI);
    for (const Loop *L : LI.getLoopsInPreorder())
      if (const BranchInst *G = loopGuard(*L, DT, PDT, SE))
        Guards.insert(G->getParent());
  }

  DenseMap<const BasicBlock *, SmallVector<const BasicBlock *, 8>> Inherits;
  SmallVector<const BasicBlock *, 16> Work;
  forEachReturningControlDependence(
      F, PDT, [&](const BasicBlock *A, const BasicBlock *B) {
        const Loop *L = LI.getLoopFor(A);
        if ((L && L->isLoopExiting(A)) || Guards.count(A))
          Inherits[A].push_back(B);
        else if (Conditional.insert(B).second)
          Work.push_back(B);
      });
  while (!Work.empty()) {
    auto It = Inherits.find(Work.pop_back_val());
    if (It == Inherits.end())
      continue;
    for (const BasicBlock *B : It->second)
      if (Conditional.insert(B).second)
        Work.push_back(B);
  }
}

// One group per statement: consecutive traced accesses of one block with
// the same line, scope and inlinedAt; a call or a line change ends it.
FunctionPlan AccessAnalysis::run() {
  FunctionPlan Plan;
  computeLoops(Plan);
  computeConditionalBlocks();

  using Key = std::tuple<unsigned, const Metadata *, const Metadata *>;
  auto KeyOf = [this](const Instruction &I) -> Key {
    const DILocation *Loc = programLocationIn(F, I.getDebugLoc().get());
    if (!Loc)
      return Key(0, nullptr, nullptr);
    return Key(Loc->getLine(), Loc->getScope(), Loc->getInlinedAt());
  };

  SmallVector<Access, 8> Group;
  Key GroupKey;
  for (BasicBlock &BB : F) {
    for (Instruction &I : BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (endsGroup(I))
          finishGroup(Plan, Group);
        const Function *Callee = directCallee(*CB);
        StringRef Name = Callee ? Callee->getName() : StringRef();
        bool IsCopy =
            isa<MemTransferInst>(CB) ||
            ((Name == "memcpy" || Name == "memmove") && CB->arg_size() == 3);
        bool IsSet =
            isa<MemSetInst>(CB) || (Name == "memset" && CB->arg_size() == 3);
        if (IsCopy || IsSet) {
          Value *Dst = CB->getArgOperand(0);
          Value *Src = IsCopy ? CB->getArgOperand(1) : nullptr;
          if (!Dst->getType()->isPointerTy() ||
              (Src && !Src->getType()->isPointerTy()) ||
              !CB->getArgOperand(2)->getType()->isIntegerTy())
            continue;
          if (!isInterestingPointer(Dst, true) &&
              !(Src && isInterestingPointer(Src, false)))
            continue;
          addCallSite(Plan, I, IsCopy ? CHT_SITE_MEMCPY : CHT_SITE_MEMSET);
          Site &S = Plan.Sites.back();
          S.Dst = Dst;
          S.Src = Src;
          S.Len = CB->getArgOperand(2);
        } else if (isMPICall(I) || isClockCall(I)) {
          // an MPI call, or a clock read: recorded like an untraced MPI
          // call, a fence (docs/dependence.md, "Clock reads")
          addCallSite(Plan, I, CHT_SITE_CALL);
          if (auto *CI = dyn_cast<CallInst>(CB))
            addQueryOutputs(Plan, *CI, Name);
        } else if (isa<CallInst>(CB) && Callee && Callee->isDeclaration() &&
                   (((Name == "malloc" || Name == "free") &&
                     CB->arg_size() == 1) ||
                    ((Name == "calloc" || Name == "realloc") &&
                     CB->arg_size() == 2) ||
                    (CB->arg_size() >= 1 &&
                     (isCxxNew(Name) || isCxxDelete(Name))))) {
          // heap blocks: their allocation and free are writes of the whole
          // block, so no MPI call on it is moved across them (C++'s
          // operator new and delete too: a std::vector sent from and
          // destroyed when its function returns; a new that may throw is
          // invoked, not called: its block is not recorded, its delete is)
          bool Free = Name == "free" || isCxxDelete(Name);
          Value *P = Free ? CB->getArgOperand(0) : CB;
          // the size: malloc's and new's first argument, realloc's
          // second, calloc's two
          Value *Len = Free                ? nullptr
                       : Name == "realloc" ? CB->getArgOperand(1)
                                           : CB->getArgOperand(0);
          Value *Len2 = Name == "calloc" ? CB->getArgOperand(1) : nullptr;
          if (!P->getType()->isPointerTy() ||
              (Len && !Len->getType()->isIntegerTy()) ||
              (Len2 && !Len2->getType()->isIntegerTy()))
            continue;
          addCallSite(Plan, I, CHT_SITE_MEMSET);
          Site &S = Plan.Sites.back();
          S.Flags |= CHT_SITEF_HEAP;
          S.Heap = Free ? Site::HeapFree : Site::HeapAlloc;
          S.Dst = P;
          S.Len = Len;
          S.Len2 = Len2;
        } else if (!CB->isInlineAsm() && !(Callee && Callee->isIntrinsic()) &&
                   !(Callee && (Traced ? Traced->count(Callee)
                                       : !Callee->isDeclaration())) &&
                   handsProgramPointer(*CB)) {
          // code the pass may not have compiled reads and writes what the
          // trace does not hold: a fence unless the runtime knows the callee
          // (docs/dependence.md, "Calls into code built without the pass")
          addCallSite(Plan, I, CHT_SITE_CALL);
          Plan.Sites.back().Extern = true;
        }
        continue;
      }
      Access A;
      if (!describeAccess(I, A))
        continue;
      Key K = KeyOf(I);
      if (!Group.empty() && K != GroupKey)
        finishGroup(Plan, Group);
      GroupKey = K;
      Group.push_back(A);
    }
    finishGroup(Plan, Group);
  }
  computeSiteCosts(F, Plan);
  return Plan;
}

} // namespace commhint
