#!/usr/bin/env python3
"""gen.py - generates the MPI prototypes of toolchain/mpi.h and the bridge's
ABI constants (src/mpi/abi.h) from the MPI Standard's apis.json.

    python3 src/mpi/gen/gen.py            (from the repository root)

Inputs: /work/shared/mpi-standard/apis.json (or $MPI_APIS_JSON), the
hand-written constants of toolchain/mpi.h.  Outputs are committed; the
build never runs this script."""
import json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
APIS = os.environ.get('MPI_APIS_JSON', '/work/shared/mpi-standard/apis.json')
HEADER = os.path.join(ROOT, 'toolchain', 'mpi.h')
ABI_H = os.path.join(ROOT, 'src', 'mpi', 'abi.h')

# Procedures added after MPI-3.1 (apis.json describes MPI-4.1).
POST_31 = re.compile(r'''^MPI_(
    Session_.* | Group_from_session_pset | Comm_create_from_group |
    Intercomm_create_from_groups | Comm_idup_with_info | Info_create_env |
    Info_get_string | Isendrecv | Isendrecv_replace | Parrived | Pready.* |
    Precv_init | Psend_init | T_event_.* | T_source_.* |
    T_category_get_events | T_category_get_num_events |
    (Allgather|Allgatherv|Allreduce|Alltoall|Alltoallv|Alltoallw|Barrier|
     Bcast|Exscan|Gather|Gatherv|Reduce|Reduce_scatter|Reduce_scatter_block|
     Scan|Scatter|Scatterv|Neighbor_allgather|Neighbor_allgatherv|
     Neighbor_alltoall|Neighbor_alltoallv|Neighbor_alltoallw)_init
    )$''', re.X)

INT_KINDS = '''ACCESS_MODE ARGUMENT_COUNT ARRAY_LENGTH ARRAY_LENGTH_NNI
ARRAY_LENGTH_PI ASSERT BIND_TYPE CAT_INDEX COLOR COMBINER COMM_COMPARISON
COMM_SIZE COMM_SIZE_PI COORDINATE CVAR_INDEX CVAR_INDEX_SPECIAL DEGREE
DIMENSION DISTRIB_ENUM DTYPE_DISTRIBUTION ERROR_CLASS ERROR_CODE
ERROR_CODE_SHOW_INTENT FILE_DESCRIPTOR GENERIC_DTYPE_INT GROUP_COMPARISON
INDEX INFO_VALUE_LENGTH KEY KEYVAL KEY_INDEX LOCK_TYPE LOGICAL
LOGICAL_OPTIONAL MATH NUM_DIMS ORDER POLYDISPLACEMENT POLYDISPLACEMENT_COUNT
POLYDTYPE_NUM_ELEM POLYDTYPE_NUM_ELEM_NNI POLYDTYPE_NUM_ELEM_PI
POLYNUM_BYTES POLYNUM_BYTES_NNI POLYNUM_PARAM_VALUES POLYRMA_DISPLACEMENT
POLYXFER_NUM_ELEM POLYXFER_NUM_ELEM_NNI PROCESS_GRID_SIZE PROFILE_LEVEL
PVAR_CLASS PVAR_INDEX RANK RANK_NNI SPLIT_TYPE STRING_LENGTH TAG
THREAD_LEVEL TOOLENUM_INDEX TOOLENUM_SIZE TOOLS_NUM_ELEM_SMALL
TOOL_VAR_VALUE TOOL_VAR_VERBOSITY TOPOLOGY_TYPE TYPECLASS TYPECLASS_SIZE
UPDATE_MODE UPDATE_NUMBER VARIABLE_SCOPE VERSION WEIGHT
XFER_NUM_ELEM_SMALL'''.split()
BASE = {k: 'int' for k in INT_KINDS}
BASE.update({
    'DISPLACEMENT': 'MPI_Aint', 'POLYDISPLACEMENT_AINT_COUNT': 'MPI_Aint',
    'LOCATION_SMALL': 'MPI_Aint', 'POLYDTYPE_STRIDE_BYTES': 'MPI_Aint',
    'POLYLOCATION': 'MPI_Aint', 'POLYDTYPE_PACK_SIZE': 'MPI_Aint',
    'WINDOW_SIZE': 'MPI_Aint', 'WIN_ATTACH_SIZE': 'MPI_Aint',
    'ALLOC_MEM_NUM_BYTES': 'MPI_Aint', 'RMA_DISPLACEMENT_NNI': 'MPI_Aint',
    'DISPOFFSET_SMALL': 'MPI_Aint', 'POLYDISPOFFSET': 'MPI_Aint',
    'XFER_NUM_ELEM': 'MPI_Count', 'NUM_BYTES': 'MPI_Count',
    'OFFSET': 'MPI_Offset',
    'COMMUNICATOR': 'MPI_Comm', 'DATATYPE': 'MPI_Datatype',
    'OPERATION': 'MPI_Op', 'GROUP': 'MPI_Group', 'REQUEST': 'MPI_Request',
    'WINDOW': 'MPI_Win', 'FILE': 'MPI_File', 'INFO': 'MPI_Info',
    'ERRHANDLER': 'MPI_Errhandler', 'MESSAGE': 'MPI_Message',
    'STATUS': 'MPI_Status', 'F08_STATUS': 'MPI_F08_status',
    'F90_STATUS': 'MPI_Fint',
    'TOOLS_ENUM': 'MPI_T_enum', 'CVAR': 'MPI_T_cvar_handle',
    'PVAR': 'MPI_T_pvar_handle', 'PVAR_SESSION': 'MPI_T_pvar_session',
    'STRING': 'char',
})
for k in ('COMM DATATYPE ERRHANDLER FILE GROUP INFO MESSAGE OP REQUEST WIN'
          .split()):
    BASE['F90_' + k] = 'MPI_Fint'
# Kinds that are already a pointer in C and never get another '*'.
OPAQUE = {'BUFFER': 'void *', 'C_BUFFER': 'void *', 'C_BUFFER2': 'void *',
          'C_BUFFER3': 'void *', 'C_BUFFER4': 'void *',
          'EXTRA_STATE': 'void *', 'EXTRA_STATE2': 'void *',
          'ATTRIBUTE_VAL': 'void *', 'ATTRIBUTE_VAL_10': 'void *',
          'TOOL_MPI_OBJ': 'void *'}
RET = {'ERROR_CODE': 'int', 'ERROR_CLASS': 'int', 'NOTHING': 'void',
       'WALL_TIME': 'double', 'TICK_RESOLUTION': 'double',
       'LOCATION_SMALL': 'MPI_Aint', 'DISPLACEMENT': 'MPI_Aint'}
for k in ('COMMUNICATOR DATATYPE ERRHANDLER FILE GROUP INFO MESSAGE '
          'OPERATION REQUEST WINDOW').split():
    RET[k] = BASE[k]
for k in BASE:
    if k.startswith('F90_'):
        RET[k] = 'MPI_Fint'


def c_param(p):
    """One C parameter declaration from an apis.json parameter."""
    kind, name = p['kind'], p['name']
    const = 'const ' if p['constant'] else ''
    is_array = p['length'] is not None
    out = p['param_direction'] in ('out', 'inout')
    if kind == 'VARARGS':
        return '...'
    if kind in ('FUNCTION', 'POLYFUNCTION'):
        return '%s *%s' % (p['func_type'] or 'MPI_User_function', name)
    if kind in OPAQUE:
        return '%s%s%s' % (const, OPAQUE[kind], name)
    if kind == 'STRING':
        return '%schar %s%s' % (const, '*' if not is_array else '', name) + \
            ('[]' if is_array else '')
    if kind == 'STRING_ARRAY':
        return 'char *%s[]' % name
    if kind == 'STRING_2DARRAY':
        return 'char **%s[]' % name
    if kind == 'ARGUMENT_LIST':
        return 'char ***%s' % name
    base = BASE[kind]
    if kind == 'RANK' and name == 'ranges':
        return '%sint %s[][3]' % (const, name)
    if kind in ('STATUS', 'F90_STATUS', 'F08_STATUS') and not is_array:
        return '%s%s *%s' % (const, base, name)
    if is_array:
        return '%s%s %s[]' % (const, base, name)
    ptr = p['pointer'] if p['pointer'] is not None else out
    return '%s%s %s%s' % (const, base, '*' if ptr else '', name)


def c_params(e):
    ps = [p for p in e['parameters']
          if 'c_parameter' not in p['suppress'] and not p['large_only']]
    return ', '.join(c_param(p) for p in ps) or 'void'


def procedures(apis):
    for key in sorted(apis):
        e = apis[key]
        a = e['attributes']
        if a['callback'] or a['predefined_function'] or \
                not a['c_expressible'] or POST_31.match(e['name']):
            continue
        yield e


def prototypes(apis):
    out = []
    for e in procedures(apis):
        ret = RET[e['return_kind']]
        if e['name'] == 'MPI_Pcontrol':
            ret = 'int'
        params = c_params(e)
        for pre in ('MPI_', 'PMPI_'):
            out.append('%s %s%s(%s);' % (ret, pre, e['name'][4:], params))
    return out


def write_header(apis):
    text = open(HEADER).read()
    b, m = '/* BEGIN GENERATED PROTOTYPES */\n', '/* END GENERATED PROTOTYPES */'
    i, j = text.index(b) + len(b), text.index(m)
    text = text[:i] + '\n'.join(prototypes(apis)) + '\n' + text[j:]
    open(HEADER, 'w').write(text)
    return text


DEF = re.compile(r'^#define (MPI_[A-Z0-9_]+)\s+(?:\(\(MPI_\w+\)\s*(-?\w+)\)|'
                 r'\(?(-?[0-9]+)\)?)\s*(?:/\*.*)?$')


def write_abi(text):
    """The module-side numbers, prefixed MW_, for the bridge (which sees
    the host's mpi.h, so it cannot include the module's)."""
    lines = ['/* abi.h - GENERATED by src/mpi/gen/gen.py from toolchain/mpi.h;',
             ' * do not edit.  The module-side value of every MPI constant. */',
             '#ifndef MPIWASM_MPIB_ABI_H', '#define MPIWASM_MPIB_ABI_H', '']
    for ln in text.splitlines():
        m = DEF.match(ln)
        if not m:
            continue
        v = m.group(2) if m.group(2) is not None else m.group(3)
        lines.append('#define MW_%s (%s)' % (m.group(1)[4:], v))
    lines += ['', '#endif', '']
    open(ABI_H, 'w').write('\n'.join(lines))


def main():
    apis = json.load(open(APIS))
    text = write_header(apis)
    write_abi(text)
    if len(sys.argv) > 1 and sys.argv[1] == '--list':
        for e in procedures(apis):
            print(e['name'])


if __name__ == '__main__':
    main()
