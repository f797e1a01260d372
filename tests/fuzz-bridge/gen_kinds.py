#!/usr/bin/env python3
"""gen_kinds.py - the fuzzer's view of every registered bridge procedure:
one row per name registered in src/mpi/glue.c (and hand_env.c's env helpers),
with its signature and one class letter per argument taken from the MPI
Standard's apis.json parameter kinds, plus a call dispatcher per signature.

    python3 tests/fuzz-bridge/gen_kinds.py     (from the repository root)

Input: ../shared/mpi-standard/apis.json (or $MPI_APIS_JSON) and, for the
typed procedures, src/mpi/gen/args.py's classification.  The output,
tests/fuzz-bridge/kinds.h, is committed; the build never runs this."""
import json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APIS = os.environ.get('MPI_APIS_JSON', os.path.join(ROOT, '..', 'shared',
                                                    'mpi-standard', 'apis.json'))

# Argument classes (fuzz_bridge.c draws each from its own pool):
#   b buffer address   p out pointer   s in string   S array of strings
#   a<e> in array of <e>   P<e> in/out scalar <e> (pointer, pre-set)
#   n count/length  d displacement/offset  r peer rank  R root  t tag
#   x module function (table index)  v attribute value / extra state
#   h MPI_T handle or index  z any other int
#   handles: c comm  y datatype  g group  q request  o op  i info
#            w window  f file  e errhandler  m message  k keyval
HANDLES = {'COMMUNICATOR': 'c', 'DATATYPE': 'y', 'GROUP': 'g', 'REQUEST': 'q',
           'OPERATION': 'o', 'INFO': 'i', 'WINDOW': 'w', 'FILE': 'f',
           'ERRHANDLER': 'e', 'MESSAGE': 'm', 'KEYVAL': 'k'}
DISP = re.compile(r'DISPLACEMENT|OFFSET|DISPOFFSET|STRIDE_BYTES|LOCATION')
COUNT = re.compile(r'NUM_ELEM|LENGTH|COUNT|SIZE|DEGREE|NUM_DIMS|NUM_BYTES|'
                   r'DIMENSION|COORDINATE|WEIGHT|INDEX|PARAM_VALUES|ALLOC_MEM')


def elem(p):
    k, n = p['kind'], p['name']
    if k in HANDLES:
        return HANDLES[k]
    if k.startswith('RANK'):
        return 'R' if 'root' in n else 'r'
    if k == 'TAG':
        return 't'
    if 'FUNCTION' in k:
        return 'x'
    if k.startswith(('ATTRIBUTE_VAL', 'EXTRA_STATE', 'F90_')):
        return 'v'
    if k.startswith(('CVAR', 'PVAR')) or k == 'CAT_INDEX':
        return 'h'
    if DISP.search(k):
        return 'd'
    if COUNT.search(k):
        return 'n'
    return 'z'


def cls(p):
    k, d = p['kind'], p['param_direction']
    arr = bool(p['length']) or p['pointer'] is True
    if k in ('BUFFER', 'C_BUFFER', 'C_BUFFER2') and not (k != 'BUFFER' and d == 'out'):
        return 'b'
    if k in ('STRING_ARRAY', 'STRING_2DARRAY', 'ARGUMENT_LIST') or (k == 'STRING' and arr and d == 'in'):
        return 'S'
    if k == 'STRING' and d == 'in':
        return 's'
    if 'STATUS' in k or d == 'out':
        return 'p'
    if arr:
        return 'a' + elem(p)
    if d == 'inout':
        return 'P' + elem(p)
    return elem(p)


# Typed procedures (src/mpi/gen/family-*.txt `typed:` lines): the letters
# come from the bridge's own classification of their arguments
# (src/mpi/gen/args.py), the one its generated checks follow.
GEN = os.path.join(ROOT, 'src', 'mpi', 'gen')
sys.path.insert(0, GEN)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
import args as argclass   # noqa: E402

TYPED = set()
for _fn in sorted(os.listdir(GEN)):
    if _fn.startswith('family-') and _fn.endswith('.txt'):
        for _line in open(os.path.join(GEN, _fn)):
            _w = _line.split('#')[0].split()
            if _w and _w[0] in ('typed:', 'typed-locked:'):
                TYPED.update('MPI_' + n for n in _w[1:])
# Class -> letter; None: the letter of the apis.json kind (elem).
LETTER = {'comm': 'c', 'dtype': 'y', 'buf': 'b', 'count': 'n', 'bytes': 'b',
          'size': 'n', 'rank': 'r', 'tag': 't', 'int': None, 'count64': 'n',
          'out': 'p', 'out64': 'p', 'outarr': 'p', 'hout': 'p', 'req': 'q',
          'reqs': 'aq', 'len': 'n', 'status': 'p', 'statuses': 'p',
          'status_in': 'p', 'status_io': 'p',
          # The datatypes chapter's classes: the letter the apis.json kind
          # gave before the chapter was typed (cls), so the fuzzer draws
          # the same calls for it.
          'cdtype': 'y', 'dtref': 'y', 'aint': None, 'addr': 'b', 'str': None,
          'arr': None, 'aints': None, 'dtypes': 'ay', 'packed': 'b', 'pos': None,
          'comm_any': 'c', 'group': 'g', 'info': 'i', 'strout': 'p', 'ranges': None, 'varargs': None, 'errh': 'e',
          'keyval': None, 'word': None, 'wout': None, 'fn': None,
          'keyout': 'p', 'win': None}
# The MPI-IO chapter's classes (the kind's letter before it was typed).
LETTER.update({'file': 'f', 'file_any': 'f', 'offset': 'd', 'offout': 'p', 'repout': 'p'})
# The one-sided chapter's second part: the letters its hand-written
# procedures had (a buffer or window memory 'b', the rest the kind's).
LETTER.update({'swin': None, 'wsize': None, 'dunit': None, 'loc': 'b', 'elem': 'b',
               'nobuf': 'b', 'atomdt': 'y', 'tdisp': None})
KIND_LETTER_MORE = {'ranges', 'varargs', 'keyval', 'word', 'wout', 'fn'}
# The rest chapter's classes: the letter of the kind, as before it.
KIND_LETTER_REST = {'comm_abort', 'sink', 'sinklen', 'nonneg', 'info_io', 'tkeyval',
                    'opr_io', 'fstatus', 'reqref', 'port', 'iarr', 'cartarr', 'edges',
                    'dgedges', 'weights', 'nnout', 'owts', 'cartcomm', 'positive', 'narr'}
# Classes whose letter is cls()'s (the kind's, array or in/out included).
KIND_LETTER = {'arr', 'aints', 'pos', 'str'}
# The collectives chapter's classes: the kind's letter too (the calls the
# fuzzer draws for them did not change when they were typed); op is also
# the accumulates' and MPI_Op_commutative's (their letter was the kind's:
# 'o').
KIND_LETTER |= {'ccomm', 'cbuf', 'ccount', 'cdt', 'croot', 'carr', 'ctypes', 'caints',
                'creq', 'op'}
# The agreed collectives' classes (File_open, Comm_accept/connect): the
# kind's letter, as when they were written by hand.
KIND_LETTER |= {'vcomm', 'rcomm', 'gpath'}
# The spawns' classes: the kind's letter, as when they were written by hand.
KIND_LETTER |= {'spcmd', 'spawnarg', 'errcodes'}
# MPI_T's classes: the kind's letter, as when they were written by hand.
KIND_LETTER |= {'tindex', 'tout', 'tname', 'tnamelen', 'tenum', 'tcvh', 'tcvh_io', 'tsess',
                'tsess_io', 'tpvh', 'tpvh_io', 'tval', 'tobj', 'tlen', 'tarr'}


def typed_cls(e, ps):
    """The letters of typed procedure e from its argument classes."""
    out = ''
    for a, p in zip(argclass.classify(e), ps):
        if a.cls == 'hio':   # in/out slot, or a handle passed by pointer
            out += ('P' if a.dir == 'inout' else 'a') + elem(p)
        elif a.cls in KIND_LETTER or a.cls in KIND_LETTER_MORE or a.cls in KIND_LETTER_REST or \
                a.cls == 'addr' and p['kind'].startswith('ARGUMENT_'):   # MPI_Init's
            out += cls(p)
        elif a.cls == 'rank' and p['name'] == 'root':   # an agreed call's root
            out += elem(p)
        else:
            out += LETTER[a.cls] or elem(p)
    return out


def main():
    apis = json.load(open(APIS))
    glue = open(os.path.join(ROOT, 'src', 'mpi', 'glue.c')).read()
    hand = open(os.path.join(ROOT, 'src', 'mpi', 'hand_env.c')).read()
    reg = re.findall(r'\{ "env", "(MPI_\w+)", "([^"]*)"', glue)
    env = re.findall(r'\{ "env", "(\w+)", "([^"]*)"', hand[hand.index('env_fns[]'):])
    rows = []
    for name, sig in reg:
        # MPI-4 large-count versions (MPI_Send_c) are rows of their
        # procedure in apis.json, with its large-only parameters.
        large = name.lower() not in apis and name.endswith('_c')
        e = apis[(name[:-2] if large else name).lower()]
        ps = [p for p in e['parameters']
              if (large or not p['large_only']) and 'c_parameter' not in p['suppress']]
        assert len(ps) == len(sig.split(':')[0]), name
        if e['name'] in TYPED and len(ps) == len(argclass.params(e)):
            rows.append((name, sig, typed_cls(e, ps)))
        else:
            rows.append((name, sig, ''.join(cls(p) for p in ps)))
    # env helpers: gethostname(name, len), __cxa_allocate_exception(size),
    # __cxa_throw(obj, tinfo, dtor)
    envcls = {'gethostname': 'pn', '__cxa_allocate_exception': 'n',
              '__cxa_throw': 'vvx'}
    for name, sig in env:
        rows.append((name, sig, envcls[name]))
    sigs = sorted({s for _, s, _ in rows})
    out = ['/* kinds.h - GENERATED by tests/fuzz-bridge/gen_kinds.py from',
           ' * src/mpi/glue.c, src/mpi/hand_env.c and the MPI Standard\'s apis.json;',
           ' * do not edit.  Regenerate: python3 tests/fuzz-bridge/gen_kinds.py */',
           '', 'static const struct fz_proc { const char *name, *sig, *cls; } fz_procs[] = {']
    out += ['\t{ "%s", "%s", "%s" },' % r for r in rows]
    out += ['};', '',
            '/* Calls host function fn of signature sig with a[] (i32 args',
            ' * truncated); the i32 result, or 0 for none / f64. */',
            'static uint64_t fz_dispatch(rt_instance *inst, const char *sig, void *fn, const uint64_t *a)',
            '{']
    ct = {'i': 'uint32_t', 'I': 'uint64_t', 'F': 'double', 'f': 'float'}
    for s in sigs:
        ps, rs = s.split(':')
        ret = ct[rs] if rs else 'void'
        typ = '%s (*)(%s)' % (ret, ', '.join(['rt_instance *'] + [ct[c] for c in ps]))
        args = ', '.join(['inst'] + ['(%s)a[%d]' % (ct[c], i) for i, c in enumerate(ps)])
        call = '((%s)fn)(%s)' % (typ, args)
        body = ('return %s;' % call) if rs == 'i' else ('%s; return 0;' % call)
        out.append('\tif (!strcmp(sig, "%s")) { %s }' % (s, body))
    out += ['\treturn 0;', '}', '']
    open(os.path.join(ROOT, 'tests', 'fuzz-bridge', 'kinds.h'), 'w').write('\n'.join(out))


main()
