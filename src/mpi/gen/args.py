"""args.py - the classification of every parameter of a typed procedure:
what the generated entry (mwg_X in glue.c) checks, how it converts the
argument, and what C type the hand-written handler (mwh_X) receives.

Derived from apis.json (kind, direction, length, pointer) by classify();
what apis.json cannot say comes from src/mpi/gen/args.txt (read here, one
override a line).  gen.py (gen_typed) emits the checks and the handler's
prototype from it; tests/fuzz-bridge/gen_kinds.py reads it for the fuzzer's
argument classes of typed procedures.

Classes (handler type in brackets):
  comm      communicator handle, in; must be a live one   [MPI_Comm]
  dtype     datatype handle, in                           [mw_dtype *]
  buf       buffer of a (buf, count, datatype) triple, checked over the
            whole extent count elements of the datatype span; MPI_BOTTOM is
            the memory base                        [const void * / void *]
  count     the count of a buffer triple                  [int]
  bytes     buffer followed by its size in bytes (MW_ERR_BUFFER if off
            linear memory or the size is negative)        [void *]
  size      that size                                     [int]
  rank      peer rank, wildcards converted                [int]
  tag       tag, wildcards converted                      [int]
  int       any other int scalar, in                      [int]
  count64   a 64-bit count, in                            [MPI_Count]
  out       int out pointer, 4 bytes                      [int32_t *]
  out64     64-bit count out pointer, 8 bytes             [MPI_Count *]
  outarr    int out array of `len` elements               [int32_t *]
  hout      request / message out: the module slot        [uint32_t *]
  hio       request / message in/out (or in by pointer): the slot is
            checked, read once, and its handle looked up  [mw_req_io * /
                                                             mw_msg_io *]
  req       request handle by value                       [MPI_Request]
  reqs      array of `len` requests: snapshotted, no live request twice,
            each looked up                                [mw_reqs *]
  len       the length of a reqs array (negative: MW_ERR_COUNT) [int]
  status    status out; 0 is MPI_STATUS_IGNORE            [mw_status * or NULL]
  statuses  array of `len` statuses out; 0 is MPI_STATUSES_IGNORE
                                                          [mw_status * or NULL]
  status_in status in, converted to a host status     [const MPI_Status *]
  status_io status read or written in place (in/out), never ignored:
            24 bytes                                      [mw_status *]
Added with the datatypes chapter (hand_type.c):
  comm_any  communicator handle, in, MPI_COMM_NULL passed on to the host
            (which refuses it, or ignores it: MPI_Pack)   [MPI_Comm]
  cdtype    datatype handle, in, that must be committed (the host lays
            data out by it without a buffer: MW_ERR_TYPE)  [mw_dtype *]
  dtref     datatype handle, in, when the handler asks about the handle
            itself (predefined or not)          [const mw_dtype_ref *]
  aint      MPI_Aint scalar, in (a 32-bit module word, sign-extended)
                                                          [MPI_Aint]
  addr      a module address taken as a value, never dereferenced
            (MPI_Get_address's location)                  [uint32_t]
  str       NUL-terminated string, in (MW_ERR_ARG if it runs off linear
            memory); checked with the handles             [const char *]
  arr       int array, in, of `len` elements (the length argument: a
            negative one is an empty array, the host refuses it):
            snapshotted; the handler may convert the copy in place
                                                          [int *]
  aints     MPI_Aint array, in, of `len` module words: widened into a
            host copy                                     [const MPI_Aint *]
  dtypes    datatype array, in, of `len` handles: snapshotted, each
            looked up                             [const MPI_Datatype *]
  packed    packed buffer and its size in bytes (MPI_Pack's outbuf,
            MPI_Unpack's inbuf): as bytes, except that a size of 0 takes
            any address                                   [void *]
  pos       in/out position (MPI_Pack's, int) into a buffer of the
            `len` argument's size: the slot checked, read once and
            range-checked in [0, size], with a line naming its value;
            the handler checks the room its call needs (mw_pos_room)
                                                          [mw_pos *]
Added with the communicators and groups chapter (hand_comm.c):
  group     group handle, in (MPI_GROUP_NULL passed on)   [MPI_Group]
  info      info handle, in (MPI_INFO_NULL passed on)     [MPI_Info]
  ranges    int array, in, of `len` rank triples (first, last, stride):
            snapshotted (a negative length: MW_ERR_ARG)   [int *, 3 a triple]
  varargs   the module's variable arguments (MPI_Pcontrol): their
            module address, meaningless to the host       [uint32_t]
  strout    string out into a buffer of the module's MPI_MAX_... bytes
            (apis.json's length): the whole buffer inside linear memory
                                                          [char *]
Added with the attributes chapter (hand_attr.c):
  keyval    keyval handle, in: looked up (MW_ERR_KEYVAL)  [const mw_keyval_ref *
                                                           (module, host)]
  word      a module word taken as a value (an attribute value, extra
            state)                                        [uint32_t]
  wout      a module word out (an attribute value got)    [uint32_t *]
  fn        a module function: its table index, checked by the handler
            against the type it calls it with             [uint32_t]
Added with the errors chapter (hand_err.c):
  errh      error handler handle, in, checked; the handler gets the module
            handle (the bridge keeps error handlers by it) [uint32_t]
Added with the environment chapter (hand_env.c):
  keyout    an info key out (MPI_Info_get_nthkey's): MPI_MAX_INFO_KEY + 1
            bytes inside linear memory                    [char *]
  (MPI_Init's argc and argv are `addr`, never read; MPI_Alloc_mem's
  baseptr is `wout`, its size `aint`, MPI_Free_mem's base `addr`: the
  module's free checks it.)
Added with the one-sided chapter (hand_rma.c):
  win       window handle, in: looked up first (MPI_ERR_WIN on no error
            handler's object, as before); the call's error object: every
            later failure goes to the window's error handler
                                                          [struct rma_win *]
Added with the MPI-IO chapter (hand_io.c):
  file      file handle, in: looked up first (MPI_ERR_FILE through
            MPI_FILE_NULL's error handler); the call's error object: every
            later failure goes to the file's error handler; the one-line
            messages are hand_io.c's (f_fail)       [struct mwf *]
  file_any  file handle, in, MPI_FILE_NULL allowed (its error handler is
            the one of MPI_File_open): the error object as file
                                                  [struct mwf * or NULL]
  offset    MPI_Offset, in (an i64)                       [MPI_Offset]
  offout    MPI_Offset out pointer, 8 bytes               [int64_t *]
  repout    a data representation's name out (MPI_File_get_view):
            MPI_MAX_DATAREP_STRING bytes inside linear memory [char *]
  (hio takes a file in/out, MPI_File_close: mw_file_io.)  A procedure of
  the chapter without a file argument (MPI_File_delete) has MPI_FILE_NULL
  as its error object.
  hout and hio also take the handles of the other kinds (a datatype,
  communicator, group or error handler out; in/out: MPI_Type_commit,
  MPI_Type_free, MPI_Comm_free, MPI_Group_free, MPI_Errhandler_free,
  MPI_Comm_free_keyval), and
  out / outarr
  the other int-sized out scalars and arrays (an MPI_Aint out is a
  32-bit module word).
Added with the rest chapter (the environment's, error handling's,
caching's and dynamic processes' last hand-written procedures, and the
user-defined ops of hand_op.c):
  comm_abort  MPI_Abort's communicator: never refused (a bad one or
            MPI_COMM_NULL aborts MPI_COMM_WORLD)          [MPI_Comm]
  sink      string out that the handler writes with mw_str_out when it
            has it, checked then over the string's length only
            (MW_ERR_BUFFER), not the whole buffer; cap is apis.json's
            MPI_MAX_... (0: the handler's, MPI_Info_get's valuelen)
                                                    [const mw_sink *]
  sinklen   the sink's length out, written with it        [uint32_t]
  nonneg    int in that must not be negative (MW_ERR_ARG)  [int]
  info_io   info in/out (MPI_Info_free): the slot, its handle (not a
            predefined one) and the lookup, all MW_ERR_INFO [mw_info_io *]
  tkeyval   keyval in that must be a datatype's (MW_ERR_KEYVAL), with
            the key lookup                   [const mw_keyval_ref *]
  (opr, MPI_Op_commutative's op, is now op with the flag null.)
  opr_io    op in/out (MPI_Op_free): the slot (MW_ERR_ARG), then a
            user op's handle, read once and looked up (MW_ERR_OP)
                                                          [mw_op_io *]
  fstatus   a status of either language (the same 24 bytes), in or out,
            never ignored: MW_ERR_ARG if 0 or off memory  [mw_status *]
  reqref    request handle in by value, kept with its module handle;
            MPI_REQUEST_NULL refused (MW_ERR_REQUEST)
                                                    [const mw_req_ref *]
  port      a port name in: a string shorter than the module's
            MPI_MAX_PORT_NAME (MW_ERR_ARG)                [const char *]
  iarr      int array in of `len` elements, snapshotted; a negative
            length is MW_ERR_ARG (arr passes it on as empty)  [int *]
  cartarr   int array in of as many elements as the communicator's
            cartesian dimensions, snapshotted (MPI_Cartdim_get's refusal
            of the communicator is returned first, as written by hand)
                                                          [int *]
  edges     MPI_Graph_create's and MPI_Graph_map's edges: the last entry
            of the index array (the `len` argument) elements, none if
            nnodes is not positive; snapshotted           [int *]
  dgedges   MPI_Dist_graph_create's destinations: the sum of the positive
            degrees (the `len` argument) elements, snapshotted; then every
            source and destination must be a rank of the communicator
            (MW_ERR_COMM for none, MW_ERR_RANK) (mw_dg_edges)  [int *]
  weights   edge weights in: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (for no
            edges only: MW_ERR_ARG), or `len` ints snapshotted (a
            dgedges `len`: its count) (mw_weights_in)      [int *]
  nnout     int array out of `len` elements, the length not negative
            (MW_ERR_ARG)                                  [int32_t *]
  owts      weights out of `len` elements, or MPI_UNWEIGHTED (NULL to
            the handler); checked after the communicator's distributed
            graph degrees are asked (their refusal returned first, as
            written by hand)                       [int32_t * or NULL]
  cartcomm  communicator handle, in (MPI_COMM_NULL passed on), that must
            have a cartesian topology (gen.py's CART_QUERIES; the line
            names the argument)                           [MPI_Comm]
  positive  int in that must be positive, refused with gen.py's POSITIVE
            class and a line naming its value             [int]
  narr      int array in, out or in/out of `len` elements, in place in
            linear memory as the generic rules had it: a negative length
            is refused first (MW_ERR_ARG, the line naming it), then an
            array off memory (MW_ERR_ARG)                 [int32_t *]
  (the topology queries' checks of several arguments, gen.py's EXTRA,
  run after all the others, before the handler.)
Added with the one-sided chapter, second part (hand_rma.c: windows
made and freed, accumulates, request forms, error handlers, attributes):
  swin      window handle, in, that must be a shared-memory window
            (MPI_Win_shared_query): looked up as win, then
            MW_ERR_RMA_FLAVOR on the window        [struct rma_win *]
  wsize     size of window memory, an MPI_Aint module word: negative is
            MW_ERR_SIZE                                   [uint32_t]
  dunit     displacement unit, in: not positive is MW_ERR_DISP [int]
  loc       window memory, in: [addr, addr + the `len` argument) (0 bytes
            without one) inside linear memory, else MW_ERR_BUFFER; checked
            with the pointers (after wsize)   [const mw_loc * (module
                                               address, host pointer)]
  elem      a buffer of one element of the `len` argument's datatype
            (MPI_Fetch_and_op, MPI_Compare_and_swap)
                                                  [const void * / void *]
  nobuf     an accumulate's origin buffer when its op may be MPI_NO_OP
            (MPI_Get_accumulate, MPI_Fetch_and_op): as buf (as elem when
            `len` is the datatype), but with MPI_NO_OP a bad buffer is not
            refused: the handler gets NULL       [const void *]
  atomdt    datatype of MPI_Compare_and_swap: none of the module's long
            double types (MW_ERR_TYPE)                    [mw_dtype *]
  (accop, an accumulate's op, is now op with the flag predef.)
  tdisp     target displacement, checked with the target rank
            (target_rank), count (`len`, or 1 when `len` is the datatype)
            and datatype (the one after the count) against what the
            target exposes: MW_ERR_COUNT, MW_ERR_RMA_RANGE (mw_win_target);
            the handler gets the host displacement        [MPI_Aint]
  hio       also takes a window (MPI_Win_free): the slot checked, read
            once, its window looked up (MW_ERR_WIN)       [mw_win_io *]
Added with the collectives chapter (hand_coll.c, hand_nbc.c):
  The collectives' buffer rules (root, MPI_IN_PLACE, an
  intercommunicator's MPI_ROOT and MPI_PROC_NULL, which arguments are
  significant at this process, per-peer arrays snapshotted before they are
  checked) live in src/mpi/coll_args.c, shared by the blocking and the
  nonblocking forms: the entry of a procedure in COLL (below) calls
  mw_coll_begin on its communicator and then COLL's rule, in phase 0, and
  the handler gets the values the rule filled in.
  ccomm     the collective's communicator: the record the rule filled
                                                          [mw_coll *]
  cbuf      a buffer: the host address (the module address unchecked
            where not significant, MPI_IN_PLACE)  [const void * / void *]
  ccount    a count                                       [int]
  cdt       a datatype (a stand-in for MPI_BYTE where not significant)
                                                          [mw_dtype *]
  croot     the root, converted (MPI_ROOT, MPI_PROC_NULL)  [int]
  carr      per-peer counts or displacements: the snapshot (NULL where
            not significant)                              [int *]
  ctypes    per-peer datatypes (Alltoallw): host handles   [MPI_Datatype *]
  caints    per-peer MPI_Aint displacements (Neighbor_alltoallw): host
            copies                                        [MPI_Aint *]
  creq      the request out: the module slot, checked after the rule
            (the line names `request`)                    [uint32_t *]
  op        an op handle in, one class for every chapter (args.txt
            `op+FLAG`): looked up (MW_ERR_OP); without a flag (a
            reduction's op) MPI_OP_NULL is refused too (in a collective by
            its rule, between the datatype and the buffers); flag null
            (MPI_Op_commutative): MPI_OP_NULL passed on; flag predef (an
            accumulate's): predefined ops only (module handle < 32, not
            MPI_OP_NULL)          [const mw_op_ref * (module, host handle)]
Added with the procedures whose ranks agree on a verdict (MPI_File_open,
MPI_Comm_accept, MPI_Comm_connect):
  vcomm     communicator of a collective whose ranks agree on the
            arguments before the host call: as comm (refused at once);
            every later check of the entry only sets the local verdict
            k->lc (the first failing class, 0 if none), which the handler
            shares with the other ranks before it calls the host (nobody
            waits in a collective that one rank refused)   [MPI_Comm]
  rcomm     the same with a root (the argument named root): an
            intracommunicator (MPI_COMM_NULL or an intercommunicator:
            MW_ERR_COMM at once); an argument apis.json marks root_only
            is checked at the root only, elsewhere the handler gets the
            class's stand-in (ROOT_DEFAULT in gen.py)  [const mw_root *
                                                 (host handle, am_root)]
  gpath     a file name the handler opens beneath the WASI grants only:
            a string (MW_ERR_ARG); the handler gets no host path, only
            mw_gpath_open (hand_io.c), which resolves it beneath the
            grants                                     [const mw_gpath *]
Added with the spawns (MPI_Comm_spawn, MPI_Comm_spawn_multiple), whose
ranks agree on a verdict too (their communicator is rcomm):
  spcmd     the command (MPI_Comm_spawn) or array_of_commands: with the
            spawnarg arguments, checked and prepared at the root only by
            mw_spawn_in (hand_dyn.c): every command opened beneath the
            grants and copied privately (the children run that copy: never
            the name again), its maxprocs positive, its argv read, its
            info's keys the allowed ones; the sum of maxprocs at most 65536.
            Elsewhere an empty set           [const mw_spawn * (n, total)]
  spawnarg  argv, maxprocs, info (and count, the arrays of them): read by
            spcmd's check at the root; the handler gets the module word
                                                          [uint32_t]
  errcodes  array_of_errcodes out, 0 is MPI_ERRCODES_IGNORE: at the root
            one element per child (spcmd's total), elsewhere the `len`
            argument's (MPI_Comm_spawn's maxprocs, if positive), none
            without one (mw_errcodes_in: MW_ERR_ARG)
                                             [const mw_errcodes * (p, n)]

Added with the MPI tool information interface (MPI_T_*, hand_t.c; the
entries run under the bridge's lock, family-t.txt's `typed-locked:`).
Every entry but MPI_T_init_thread's first returns MPI_T_ERR_NOT_INITIALIZED
unless MPI_T is; a failure is returned as its code, except one of a
pointer outside linear memory (MW_ERR_ARG, MW_ERR_BUFFER), which goes the
bridge's way (mw_t_fail: MPI_COMM_WORLD's handler):
  tindex    a variable's or category's index, in: in [0, the host's
            current count) (MW_T_ERR_INVALID_INDEX, or the host's code if it
            cannot count them), returned at once      [int]
  tout      an int out that may be 0 (ignored: NULL to the handler), else
            4 bytes (MW_ERR_ARG)                   [int32_t * or NULL]
  tname     a name or description out with its in/out length (the next
            argument, tnamelen): the length's slot (MW_ERR_ARG) read once,
            negative is MW_T_ERR_INVALID, then that many bytes (MW_ERR_BUFFER)
            (mw_t_str_out); mw_t_str_back writes the length back [mw_tstr *]
  tnamelen  that length: the module's address           [uint32_t]
  tenum     an enumeration handle in (MW_T_ERR_INVALID_HANDLE): the host's
                                                          [MPI_T_enum]
  tcvh      a control variable handle in (MW_T_ERR_INVALID_HANDLE)
                                                  [struct t_var *]
  tcvh_io   the same in/out (MPI_T_cvar_handle_free): the slot (MW_ERR_ARG),
            read once, looked up                  [mw_tvar_io *]
  tsess     a performance variable session in (MW_T_ERR_INVALID_SESSION)
                                                  [const mw_tsess *]
  tsess_io  the same in/out (MPI_T_pvar_session_free): slot, read once
                                                  [mw_tsess *]
  tpvh      a performance variable handle in, of the session argument
            (MW_T_ERR_INVALID_HANDLE); start, stop and reset take
            MPI_T_PVAR_ALL_HANDLES (NULL to the handler)
                                          [struct t_var * (or NULL)]
  tpvh_io   the same in/out (MPI_T_pvar_handle_free)  [mw_tvar_io *]
  tval      a variable's value, count x size bytes of its type
            (MW_ERR_BUFFER; a string in: up to its NUL); out through
            mw_t_val_out (a string staged on the host: mw_t_val_done)
                              [mw_tval * out / const void * in]
  tobj      the module address of the handle a variable is bound to, read
            by the handler by the variable's binding    [uint32_t]
  tlen      an array's length in: negative is MW_T_ERR_INVALID [int]
  tarr      an int array out of the tlen argument's elements (MW_ERR_BUFFER;
            NULL for none)                                [int32_t *]
  (and out, str, int as above: MPI_T_cvar_get_num's out is MW_ERR_ARG)

The checks run in phases, each in argument order: the communicator whose
error handler a failure goes to (the first comm), the other handles (dtype,
cdtype, dtref) and strings (str), buffers and argument arrays (buf, bytes,
packed, reqs, arr, aints, dtypes' read), pointers (out, outarr, hout,
statuses, status, status_in, status_io, pos, and hio's slot), then the
handle lookups (req, hio's read of its slot, dtypes' entries).  A failure returns at once: the first
bad argument in that order names the class.  An args.txt line may move
all the checks of one argument to another phase (`class@phase`), where the
order written by hand differed (the class a call with several bad
arguments gets did not change when its procedure became typed).
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

# Handler C type of each class (the buffer's depends on its direction).
CTYPE = {'comm': 'MPI_Comm', 'dtype': 'mw_dtype *', 'count': 'int',
         'bytes': 'void *', 'size': 'int', 'rank': 'int', 'tag': 'int',
         'int': 'int', 'count64': 'MPI_Count', 'out': 'int32_t *',
         'out64': 'MPI_Count *', 'outarr': 'int32_t *', 'hout': 'uint32_t *',
         'req': 'MPI_Request', 'reqs': 'mw_reqs *', 'len': 'int',
         'status': 'mw_status *', 'statuses': 'mw_status *',
         'status_in': 'const MPI_Status *', 'status_io': 'mw_status *',
         'cdtype': 'mw_dtype *', 'dtref': 'const mw_dtype_ref *',
         'aint': 'MPI_Aint', 'addr': 'uint32_t', 'str': 'const char *',
         'arr': 'int *', 'aints': 'const MPI_Aint *',
         'dtypes': 'const MPI_Datatype *', 'packed': 'void *', 'pos': 'mw_pos *',
         'comm_any': 'MPI_Comm', 'group': 'MPI_Group', 'info': 'MPI_Info',
         'strout': 'char *', 'ranges': 'int *', 'varargs': 'uint32_t', 'errh': 'uint32_t',
         'keyval': 'const mw_keyval_ref *', 'word': 'uint32_t', 'wout': 'uint32_t *',
         'fn': 'uint32_t', 'keyout': 'char *', 'win': 'struct rma_win *'}
# Added with the rest chapter.
CTYPE.update({'comm_abort': 'MPI_Comm', 'sink': 'const mw_sink *', 'sinklen': 'uint32_t',
              'nonneg': 'int', 'info_io': 'mw_info_io *', 'tkeyval': 'const mw_keyval_ref *',
              'opr_io': 'mw_op_io *', 'fstatus': 'mw_status *',
              'reqref': 'const mw_req_ref *', 'port': 'const char *',
              'iarr': 'int *', 'cartarr': 'int *', 'edges': 'int *', 'dgedges': 'int *',
              'weights': 'int *', 'nnout': 'int32_t *', 'owts': 'int32_t *',
              'cartcomm': 'MPI_Comm', 'positive': 'int', 'narr': 'int32_t *'})
# The collectives chapter's classes.
CTYPE.update({'ccomm': 'mw_coll *', 'ccount': 'int', 'cdt': 'mw_dtype *', 'croot': 'int',
              'carr': 'int *', 'ctypes': 'MPI_Datatype *', 'caints': 'MPI_Aint *',
              'creq': 'uint32_t *', 'op': 'const mw_op_ref *'})
HIO = {'REQUEST': 'mw_req_io *', 'MESSAGE': 'mw_msg_io *', 'DATATYPE': 'mw_dtype_io *',
       'COMMUNICATOR': 'mw_comm_io *', 'GROUP': 'mw_group_io *',
       'ERRHANDLER': 'mw_errh_io *', 'KEYVAL': 'mw_keyval_io *'}
# Added with the MPI-IO chapter.
CTYPE.update({'file': 'struct mwf *', 'file_any': 'struct mwf *', 'offset': 'MPI_Offset',
              'offout': 'int64_t *', 'repout': 'char *'})
HIO['FILE'] = 'mw_file_io *'

# The agreed collectives' classes.
CTYPE.update({'vcomm': 'MPI_Comm', 'rcomm': 'const mw_root *', 'gpath': 'const mw_gpath *'})
CTYPE.update({'spcmd': 'const mw_spawn *', 'spawnarg': 'uint32_t',
              'errcodes': 'const mw_errcodes *'})

# The flags a class takes (args.txt `class+flag`).
FLAGS = {'op': {'null', 'predef'}}

# Phase of each class's check (see the module comment).
PHASE = {'comm': 0, 'dtype': 1, 'buf': 2, 'bytes': 2, 'reqs': 2,
         'out': 3, 'out64': 3, 'outarr': 3, 'hout': 3, 'hio': 3,
         'status': 3, 'statuses': 3, 'status_in': 3, 'status_io': 3,
         'req': 4, 'cdtype': 1, 'dtref': 1, 'str': 1, 'packed': 2, 'arr': 2,
         'aints': 2, 'dtypes': 2, 'pos': 3, 'comm_any': 0, 'group': 1, 'info': 1,
         'strout': 3, 'ranges': 2, 'errh': 1, 'keyval': 1, 'wout': 3,
         'keyout': 3, 'win': 0}
PHASE.update({'file': 0, 'file_any': 0, 'offout': 3, 'repout': 3})   # MPI-IO
# Added with the rest chapter.
PHASE.update({'comm_abort': 0, 'nonneg': 1, 'info_io': 3, 'tkeyval': 1,
              'opr_io': 3, 'fstatus': 3, 'reqref': 4, 'port': 1, 'iarr': 2, 'cartarr': 2,
              'edges': 2, 'dgedges': 2, 'weights': 2, 'nnout': 2, 'owts': 3, 'cartcomm': 0,
              'positive': 1, 'narr': 2})
# The one-sided chapter, second part.
CTYPE.update({'swin': 'struct rma_win *', 'wsize': 'uint32_t', 'dunit': 'int',
              'loc': 'const mw_loc *', 'elem': 'void *', 'nobuf': 'const void *',
              'atomdt': 'mw_dtype *', 'tdisp': 'MPI_Aint'})
HIO['WINDOW'] = 'mw_win_io *'
PHASE.update({'swin': 0, 'wsize': 2, 'dunit': 2, 'loc': 3, 'elem': 2, 'nobuf': 2,
              'atomdt': 1, 'tdisp': 2})
PHASE.update({'vcomm': 0, 'rcomm': 0, 'gpath': 1})
PHASE.update({'spcmd': 2, 'errcodes': 3})
# The MPI tool information interface's classes.
CTYPE.update({'tindex': 'int', 'tout': 'int32_t *', 'tname': 'mw_tstr *', 'tnamelen': 'uint32_t',
              'tenum': 'MPI_T_enum', 'tcvh': 'struct t_var *', 'tcvh_io': 'mw_tvar_io *',
              'tsess': 'const mw_tsess *', 'tsess_io': 'mw_tsess *', 'tpvh': 'struct t_var *',
              'tpvh_io': 'mw_tvar_io *', 'tval': 'mw_tval *', 'tobj': 'uint32_t', 'tlen': 'int',
              'tarr': 'int32_t *'})
PHASE.update({'tindex': 4, 'tout': 3, 'tname': 2, 'tenum': 4, 'tcvh': 4, 'tcvh_io': 3,
              'tsess': 4, 'tsess_io': 3, 'tpvh': 4, 'tpvh_io': 3, 'tval': 4, 'tlen': 2,
              'tarr': 2})
FLAGS['tpvh'] = {'all'}
PHASE.update({'ccomm': 0, 'cbuf': 0, 'carr': 0, 'ctypes': 0, 'caints': 0, 'creq': 3, 'op': 1})
# Classes with no check of their own (converted only, or checked with
# the argument they describe).
PLAIN = {'count', 'size', 'rank', 'tag', 'int', 'count64', 'len', 'aint', 'addr',
         'varargs', 'word', 'fn'}
PLAIN |= {'offset'}   # MPI-IO
PLAIN |= {'sink', 'sinklen'}   # the rest chapter's
PLAIN |= {'ccount', 'cdt', 'croot'}
PLAIN |= {'spawnarg'}   # checked with spcmd


class Arg:
    """One parameter: index, apis.json name and kind, class, the index of
    the argument giving its count/length (buf, bytes, outarr, reqs,
    statuses) and of its datatype (buf)."""
    def __init__(self, i, p, cls, n=None, dt=None):
        self.i, self.name, self.kind, self.cls = i, p['name'], p['kind'], cls
        self.dir, self.length = p['param_direction'], p['length']
        self.n, self.dt = n, dt
        self.phase = None   # args.txt `class@phase`: all its checks there
        self.flags = set()   # args.txt `class+flag`: op's null, predef
        self.root_only = bool(p.get('root_only'))   # with rcomm: at the root only

    def ctype(self):
        if self.cls in ('buf', 'cbuf'):
            return 'const void *' if self.dir == 'in' else 'void *'
        if self.cls == 'hio':
            return HIO[self.kind]
        if self.cls == 'elem':
            return 'const void *' if self.dir == 'in' else 'void *'
        if self.cls == 'tval' and self.dir == 'in':
            return 'const void *'
        return CTYPE[self.cls]


def overrides():
    """args.txt: `MPI_Proc param class [length-param]` lines."""
    over = {}
    for line in open(os.path.join(HERE, 'args.txt')):
        w = line.split('#')[0].split()
        if not w:
            continue
        cls, _, ph = w[2].partition('@')
        cls, *flags = cls.split('+')
        if len(w) not in (3, 4) or cls not in CTYPE and cls not in ('buf', 'hio') or \
                ph and (not ph.isdigit() or int(ph) > 4) or \
                not set(flags) <= FLAGS.get(cls, set()):
            raise SystemExit('args.txt: bad line %r' % line)
        over[w[0], w[1]] = (cls, w[3] if len(w) == 4 else None, int(ph) if ph else None,
                            set(flags))
    return over


_OVER = None


class Unclassified(Exception):
    pass


def params(e):
    return [p for p in e['parameters']
            if 'c_parameter' not in p['suppress'] and not p['large_only']]


def classify(e):
    """The Arg of every parameter of procedure e (apis.json entry), or
    Unclassified naming the first parameter no rule covers."""
    global _OVER
    if _OVER is None:
        _OVER = overrides()
    ps = params(e)
    if e['name'][4:] in COLL:
        return classify_coll(e['name'], ps)
    if e['name'].startswith('MPI_T_'):
        return classify_t(e['name'], ps)
    if [p['kind'] for p in ps[:4]] == ['BUFFER', 'BUFFER', 'POLYXFER_NUM_ELEM_NNI', 'DATATYPE']:
        # Two buffers of one count and datatype (MPI_Reduce_local).
        return [Arg(0, ps[0], 'buf', 2, 3), Arg(1, ps[1], 'buf', 2, 3), Arg(2, ps[2], 'count'),
                Arg(3, ps[3], 'dtype')] + [classify_more(e['name'], ps, {}, 4, ps[4])]
    idx = {p['name']: i for i, p in enumerate(ps)}
    out = [None] * len(ps)
    for i, p in enumerate(ps):
        k, d, ln, ptr = p['kind'], p['param_direction'], p['length'], p['pointer']
        o = _OVER.get((e['name'], p['name']))
        if o:
            cls, lname, ph, flags = o
            out[i] = Arg(i, p, cls, idx[lname] if lname else None)
            out[i].phase, out[i].flags = ph, flags
            continue
        if out[i] is not None:
            continue
        nxt = ps[i + 1]['kind'] if i + 1 < len(ps) else ''
        if k == 'BUFFER' and ln is None and re.match(r'POLY(XFER|DTYPE)_NUM_ELEM', nxt) and \
                i + 2 < len(ps) and ps[i + 2]['kind'] == 'DATATYPE':
            out[i] = Arg(i, p, 'buf', i + 1, i + 2)
            out[i + 1] = Arg(i + 1, ps[i + 1], 'count')
        elif k == 'BUFFER' and ln is None and nxt.startswith('POLYNUM_BYTES'):
            out[i] = Arg(i, p, 'bytes', i + 1)
            out[i + 1] = Arg(i + 1, ps[i + 1], 'size')
        elif k == 'COMMUNICATOR' and d == 'in' and ln is None and not ptr:
            out[i] = Arg(i, p, 'comm')
        elif k == 'DATATYPE' and d == 'in' and ln is None and not ptr:
            out[i] = Arg(i, p, 'dtype')
        elif k in ('REQUEST', 'MESSAGE', 'DATATYPE', 'COMMUNICATOR', 'GROUP',
                   'ERRHANDLER') and ln is None \
                and (k in ('REQUEST', 'MESSAGE') or d != 'in' or ptr):
            if d == 'out':
                out[i] = Arg(i, p, 'hout')
            elif d == 'inout' or ptr:
                out[i] = Arg(i, p, 'hio')
            elif k == 'REQUEST':
                out[i] = Arg(i, p, 'req')
        elif k == 'REQUEST' and d == 'inout' and ln in idx:
            out[i] = Arg(i, p, 'reqs', idx[ln])
            li = idx[ln]
            if ps[li]['param_direction'] != 'in':
                raise Unclassified(p['name'])
            out[li] = Arg(li, ps[li], 'len')
        elif k == 'STATUS' and ln is None:
            out[i] = Arg(i, p, {'out': 'status', 'in': 'status_in',
                                'inout': 'status_io'}[d])
        elif d == 'in' and ln is None and not ptr and k in ('RANK', 'TAG'):
            out[i] = Arg(i, p, k.lower())
        elif d == 'in' and ln is None and not ptr and k in ('LOGICAL', 'XFER_NUM_ELEM_SMALL'):
            out[i] = Arg(i, p, 'int')
        elif d == 'in' and ln is None and not ptr and k == 'XFER_NUM_ELEM':
            out[i] = Arg(i, p, 'count64')
        elif d == 'out' and ln is None and k == 'NUM_BYTES':
            out[i] = Arg(i, p, 'out64')
        elif d == 'out' and ln is None and k in ('LOGICAL', 'INDEX', 'ARRAY_LENGTH',
                                                  'POLYXFER_NUM_ELEM', 'POLYDTYPE_NUM_ELEM',
                                                  'POLYNUM_BYTES', 'C_BUFFER2'):
            out[i] = Arg(i, p, 'out')
        else:
            out[i] = classify_more(e['name'], ps, idx, i, p)
    for i, a in enumerate(out):
        if a is None:
            raise Unclassified('%s: %s (%s, %s)' % (e['name'], ps[i]['name'],
                                                    ps[i]['kind'], ps[i]['param_direction']))
    rma_links(out, ps)
    return out


def rma_links(out, ps):
    """The arguments a one-sided class refers to besides its `len`: the
    window (.win), the accumulate's op (.op), the target rank (.rank), the
    datatype (.dt: `len` itself if it is a datatype, then the count is 1,
    .n None; else the argument after the count).  Also the datatype of a
    buf given by args.txt (which names only its count)."""
    win = [x.i for x in out if x.cls in ('win', 'swin')]
    op = [x.i for x in out if x.cls == 'op']
    rank = [x.i for x in out if x.name == 'target_rank']
    for x in out:
        if x.cls not in ('buf', 'elem', 'nobuf', 'tdisp') or x.dt is not None or x.n is None:
            continue
        if ps[x.n]['kind'] == 'DATATYPE':
            x.dt, x.n = x.n, None
        else:
            x.dt = x.n + 1
        x.win = win[0] if win else None
        x.op = op[0] if op else None
        x.rank = rank[0] if rank else None


# Kinds of the further rules (classify_more): MPI_Aint scalars (a 32-bit
# module word), handles, and kinds that are no int.
AINT_KINDS = {'POLYDTYPE_STRIDE_BYTES', 'POLYDISPLACEMENT_AINT_COUNT', 'LOCATION_SMALL',
              'DISPLACEMENT', 'POLYDTYPE_PACK_SIZE', 'POLYLOCATION'}
HANDLE_KINDS = {'COMMUNICATOR', 'DATATYPE', 'GROUP', 'REQUEST', 'OPERATION', 'INFO',
                'WINDOW', 'FILE', 'ERRHANDLER', 'MESSAGE'}
NOT_INT = re.compile(r'BUFFER|FUNCTION|STATE|^STRING$|STRING_.*ARRAY|ATTRIBUTE|STATUS|VARARGS|'
                     r'ARGUMENT_LIST|^F90_|^F08_|TOOL|CVAR|PVAR|OFFSET|XFER_NUM_ELEM$|NUM_BYTES$')


def classify_more(proc, ps, idx, i, p):
    """The rules added with the datatypes chapter (and after): int and
    MPI_Aint scalars, strings, int / MPI_Aint / datatype arrays in, int-sized
    out scalars and arrays.  None if none applies."""
    k, d, ln, ptr = p['kind'], p['param_direction'], p['length'], p['pointer']
    lin = isinstance(ln, str) and ln in idx and ps[idx[ln]]['param_direction'] == 'in'
    if k == 'STRING' and d == 'in' and ln in (None, '*'):
        return Arg(i, p, 'str')
    if k == 'STRING' and d == 'out' and isinstance(ln, str) and ln.startswith('MPI_MAX_'):
        return Arg(i, p, 'strout')
    if k == 'VARARGS':
        return Arg(i, p, 'varargs')
    if k == 'RANK' and d == 'in' and isinstance(ln, list) and ln[1:] == ['3'] and ln[0] in idx:
        return Arg(i, p, 'ranges', idx[ln[0]])
    if k == 'KEYVAL' and ln is None and d in ('in', 'inout'):
        return Arg(i, p, 'keyval' if d == 'in' else 'hio')
    if k.startswith(('ATTRIBUTE_VAL', 'EXTRA_STATE')) and ln is None and d in ('in', 'out'):
        return Arg(i, p, 'word' if d == 'in' else 'wout')
    if k == 'FUNCTION' and d == 'in' and ln is None:
        return Arg(i, p, 'fn')
    if k == 'WINDOW' and d == 'in' and ln is None and not ptr:
        return Arg(i, p, 'win')
    # Added with the MPI-IO chapter.
    if k == 'FILE' and ln is None and d in ('in', 'inout'):
        return Arg(i, p, 'file' if d == 'in' and not ptr else 'hio')
    if k == 'OFFSET' and ln is None and d in ('in', 'out'):
        return Arg(i, p, 'offset' if d == 'in' and not ptr else 'offout')
    if k == 'ERRHANDLER' and d == 'in' and ln is None and not ptr:
        return Arg(i, p, 'errh')
    if k == 'OPERATION' and d == 'in' and ln is None and not ptr and \
            not any(q['kind'] == 'WINDOW' for q in ps):
        return Arg(i, p, 'op')   # a reduction's (MPI_Reduce_local)
    if k in ('GROUP', 'INFO') and d == 'in' and ln is None and not ptr:
        return Arg(i, p, k.lower())
    if d == 'in' and ln is None and not ptr:
        if k in AINT_KINDS:
            return Arg(i, p, 'aint')
        if k not in HANDLE_KINDS and not NOT_INT.search(k):
            return Arg(i, p, 'int')
    if d == 'in' and lin:
        if k == 'DATATYPE':
            return Arg(i, p, 'dtypes', idx[ln])
        if k in AINT_KINDS:
            return Arg(i, p, 'aints', idx[ln])
        if k not in HANDLE_KINDS and not NOT_INT.search(k):
            return Arg(i, p, 'arr', idx[ln])
    if d == 'out' and not NOT_INT.search(k) and (k == 'DATATYPE' or k not in HANDLE_KINDS):
        if ln is None and k != 'DATATYPE':
            return Arg(i, p, 'out')
        if lin:
            return Arg(i, p, 'outarr', idx[ln])
    return None


# ---- the collectives chapter -------------------------------------------------
# The rule of each collective (src/mpi/coll_args.c), its arguments named
# by parameter (`&m` is the record); the nonblocking form (MPI_Ixxx) has
# its blocking form's.  None: the communicator only (MPI_Barrier).
_NB = 'mw_coll_neighbors(&m); '
COLL = {
    'Barrier': None,
    'Bcast': 'mw_coll_bcast(&m, buffer, count, datatype, root)',
    'Gather': 'mw_coll_gather(&m, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, '
              'recvtype, root)',
    'Scatter': 'mw_coll_gather(&m, 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, '
               'recvtype, root)',
    'Gatherv': 'mw_coll_gatherv(&m, sendbuf, sendcount, sendtype, recvbuf, recvcounts, '
               'displs, recvtype, root)',
    'Scatterv': 'mw_coll_scatterv(&m, sendbuf, sendcounts, displs, sendtype, recvbuf, '
                'recvcount, recvtype, root)',
    'Allgather': 'mw_coll_allgather(&m, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, '
                 'recvtype)',
    'Alltoall': 'mw_coll_allgather(&m, 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, '
                'recvtype)',
    'Allgatherv': 'mw_coll_allgatherv(&m, sendbuf, sendcount, sendtype, recvbuf, recvcounts, '
                  'displs, recvtype)',
    'Alltoallv': 'mw_coll_alltoallv(&m, sendbuf, sendcounts, sdispls, sendtype, recvbuf, '
                 'recvcounts, rdispls, recvtype)',
    'Alltoallw': 'mw_coll_alltoallw(&m, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, '
                 'recvcounts, rdispls, recvtypes)',
    'Reduce': 'mw_coll_reduce(&m, sendbuf, recvbuf, count, datatype, op, root)',
    'Allreduce': 'mw_coll_allreduce(&m, sendbuf, recvbuf, count, datatype, op)',
    'Scan': 'mw_coll_allreduce(&m, sendbuf, recvbuf, count, datatype, op)',
    'Exscan': 'mw_coll_allreduce(&m, sendbuf, recvbuf, count, datatype, op)',
    'Reduce_scatter_block': 'mw_coll_reduce_scatter_block(&m, sendbuf, recvbuf, recvcount, '
                            'datatype, op)',
    'Reduce_scatter': 'mw_coll_reduce_scatter(&m, sendbuf, recvbuf, recvcounts, datatype, op)',
    'Neighbor_allgather': 'mw_coll_nb_allgather(&m, 0, sendbuf, sendcount, sendtype, recvbuf, '
                          'recvcount, recvtype)',
    'Neighbor_alltoall': 'mw_coll_nb_allgather(&m, 1, sendbuf, sendcount, sendtype, recvbuf, '
                         'recvcount, recvtype)',
    'Neighbor_allgatherv': 'mw_coll_nb_allgatherv(&m, sendbuf, sendcount, sendtype, recvbuf, '
                           'recvcounts, displs, recvtype)',
    'Neighbor_alltoallv': 'mw_coll_nb_alltoallv(&m, sendbuf, sendcounts, sdispls, sendtype, '
                          'recvbuf, recvcounts, rdispls, recvtype)',
    'Neighbor_alltoallw': 'mw_coll_nb_alltoallw(&m, sendbuf, sendcounts, sdispls, sendtypes, '
                          'recvbuf, recvcounts, rdispls, recvtypes)',
}
COLL.update({'I' + n[0].lower() + n[1:] if n.startswith('N') else 'I' + n.lower(): r
             for n, r in list(COLL.items())})
# Neighborhood rules start with the degrees of the communicator's topology.
for _n in list(COLL):
    if 'eighbor_' in _n:
        COLL[_n] = _NB + COLL[_n]
# The record's field each argument becomes (by parameter name); `displs`
# is the receive side's but in the scatters.
COLL_FIELD = {'sendbuf': 'sp', 'buffer': 'sp', 'recvbuf': 'rp', 'sendtype': 'sd',
              'datatype': 'sd', 'recvtype': 'rd', 'root': 'root', 'sendcounts': 'scounts',
              'recvcounts': 'rcounts', 'sdispls': 'sdispls', 'rdispls': 'rdispls',
              'sendtypes': 'stypes', 'recvtypes': 'rtypes'}


def coll_field(proc, name, cls):
    """The mw_coll field the handler gets for parameter name of proc."""
    if name == 'displs':
        return 'sdispls' if 'catterv' in proc else 'rdispls'
    if cls == 'caints':
        return {'sdispls': 'sadispls', 'rdispls': 'radispls'}[name]
    return COLL_FIELD[name]


def classify_coll(proc, ps):
    """The classes of a collective's parameters (its checks are its rule's)."""
    out = []
    for i, p in enumerate(ps):
        k, d, ln = p['kind'], p['param_direction'], p['length']
        if k == 'COMMUNICATOR':
            c = 'ccomm'
        elif k == 'BUFFER':
            c = 'cbuf'
        elif k == 'DATATYPE':
            c = 'ctypes' if ln else 'cdt'
        elif k == 'RANK' and p['name'] == 'root':
            c = 'croot'
        elif k == 'OPERATION':
            c = 'op'
        elif k == 'REQUEST' and d == 'out':
            c = 'creq'
        elif k == 'DISPLACEMENT' and ln:
            c = 'caints'
        elif k.startswith(('POLYXFER_NUM_ELEM', 'POLYDISPLACEMENT')):
            c = 'carr' if ln else 'ccount'
        else:
            raise Unclassified('%s: %s (%s, %s)' % (proc, p['name'], k, d))
        out.append(Arg(i, p, c))
    return out


# ---- the MPI tool information interface ----------------------------------------
T_INDEX = {'CVAR_INDEX', 'CVAR_INDEX_SPECIAL', 'PVAR_INDEX', 'CAT_INDEX'}


def classify_t(proc, ps):
    """The classes of an MPI_T procedure's parameters (args.txt lines
    apply too: a phase or a flag)."""
    out = []
    idx = {p['name']: i for i, p in enumerate(ps)}
    for i, p in enumerate(ps):
        k, d = p['kind'], p['param_direction']
        nxt = ps[i + 1]['kind'] if i + 1 < len(ps) else ''
        n = None
        if k in T_INDEX and d == 'in':
            c = 'tindex'
        elif k == 'STRING' and d == 'out' and nxt == 'STRING_LENGTH':
            c, n = 'tname', i + 1
        elif k == 'STRING_LENGTH' and d == 'inout':
            c = 'tnamelen'
        elif k == 'STRING' and d == 'in':
            c = 'str'
        elif k == 'TOOLS_ENUM' and d == 'in':
            c = 'tenum'
        elif k == 'CVAR':
            c = {'in': 'tcvh', 'inout': 'tcvh_io', 'out': 'out'}[d]
        elif k == 'PVAR_SESSION':
            c = {'in': 'tsess', 'inout': 'tsess_io', 'out': 'out'}[d]
        elif k == 'PVAR':
            c = {'in': 'tpvh', 'inout': 'tpvh_io', 'out': 'out'}[d]
        elif k == 'BUFFER':
            c = 'tval'
        elif k == 'TOOL_MPI_OBJ' and d == 'in':
            c = 'tobj'
        elif k == 'ARRAY_LENGTH' and d == 'in':
            c = 'tlen'
        elif d == 'out' and p['length'] in idx:
            c, n = 'tarr', idx[p['length']]
        elif d == 'out' and p['length'] is None and re.search(r'get_info|get_item', proc):
            c = 'tout'   # the queries' outputs may be NULL
        elif d == 'out' and p['length'] is None:
            c = 'out'
        elif d == 'in' and p['length'] is None and not p['pointer']:
            c = 'int'
        else:
            raise Unclassified('%s: %s (%s, %s)' % (proc, p['name'], k, d))
        a = Arg(i, p, c, n)
        o = _OVER.get((proc, p['name']))
        if o:
            if o[0] != c:
                raise SystemExit('args.txt: %s %s: an MPI_T class is %s' % (proc, p['name'], c))
            a.phase, a.flags = o[2], o[3]
        out.append(a)
    # The value's variable, the handle's session: the handle argument before.
    for a in out:
        if a.cls in ('tval', 'tpvh', 'tpvh_io'):
            want = ('tcvh', 'tpvh') if a.cls == 'tval' else ('tsess',)
            a.n = [b.i for b in out[:a.i] if b.cls in want][-1]
    return out
