"""The HLO reader reads everything the TPU compiler prints.

The modules of tests/data/tpu_reader are real TPU compiler output (libtpu
0.0.42.1, no TPU: ``generate.py`` there regenerates them): a bf16 matmul, a
cumsum and top_k, int8 gather, scatter, pad, strided slice and concatenate,
layernorm with fp8 and int4, a scan with a cond and a donated buffer, a
Pallas kernel, collectives over 4 devices, and a transformer training step
(jax.grad and Adam) sharded over 4 devices, on v4, v5e, v5p and v6e.  Every
line of each is read (nothing skipped), and XLA's own parser (jaxlib's
``hlo_module_from_text``, in a subprocess) reads the same instructions.
Each construct the TPU compiler prints also has a test of its own below,
the syntax taken from XLA's parser (the mirror of openxla/xla,
``xla/hlo/parser/hlo_parser.cc`` at commit 183fa00cb5).
"""

from __future__ import annotations

import re

import pytest
from hlo_respacing import XlaParser
from locations import DATA

from tilespec.prover.hlo.attributes import computation_layout
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import Module, parse_hlo
from tilespec.spec import TilespecError
from tilespec.spec.printer import format_shape

TPU_MODULES = sorted((DATA / "tpu_reader").glob("*.hlo"))

#: What the TPU compiler prints that the corpus must hold, so that the
#: test reading every line of it covers each construct.
CONSTRUCTS = ("replica_groups=mesh[", "replica_groups={{", "/*index=5*/", "S(1)", "S(2)",
              "S(3)", "S(6)", "cross_program_prefetch_index=", "copy-start(", "copy-done(",
              "u32[]{:S(2)}", "kind=kLoop", "kind=kOutput", "kind=kCustom", "calls=",
              "is_scheduled=true", "entry_computation_layout={", "frontend_attributes={",
              "sharding={devices=", "sharding={replicated}", "custom_call_target=",
              "backend_config={", "stack_frame_id=", "input_output_alias={",
              "operand_layout_constraints=", "all-gather(",
              "collective-permute-start(", "all-to-all(", "while(", "conditional(",
              "StackFrames", "slice-start(", "E(4)", "f8e4m3fn[", "], device_ids=([2,2]T(1,0)) {")


def read_all(text: str) -> Module:
    module = parse_hlo(text)
    assert module.skipped == (), [(s.line, s.reason) for s in module.skipped]
    return module


def test_the_tpu_corpus_holds_every_construct_the_reader_must_read():
    corpus = "".join(p.read_text() for p in TPU_MODULES)
    assert len(TPU_MODULES) >= 6
    assert [c for c in CONSTRUCTS if c not in corpus] == []


@pytest.mark.parametrize("path", TPU_MODULES, ids=lambda p: p.stem)
def test_every_line_of_a_real_tpu_module_is_read(path):
    module = read_all(path.read_text())
    entry = [c for c in module.computations if c.is_entry]
    assert len(entry) == 1
    params = [i for i in entry[0].instructions if i.opcode == "parameter"]
    assert module.entry_shapes is not None
    assert len(module.entry_shapes[0]) == len(params)


@pytest.mark.parametrize("path", TPU_MODULES, ids=lambda p: p.stem)
def test_the_entry_layout_is_the_entry_parameters_layouts(path):
    """The header's entry_computation_layout names each parameter's layout
    (tiles, memory space) as the entry computation's parameters print it
    (compared as a multiset: the reader keeps no parameter number)."""
    module = read_all(path.read_text())
    entry = next(c for c in module.computations if c.is_entry)
    shapes = [format_shape(s) for s in module.entry_shapes[0]]
    printed = [format_shape(i.shape) for i in entry.instructions if i.opcode == "parameter"]
    assert sorted(shapes) == sorted(printed)


def xla_print(inst) -> str:
    """The result shape as XLA prints the instruction back.  XLA prints a
    sub-byte constant without the element size its text gives
    (``s4[]{:T(1024)E(4)} constant(0)`` prints ``s4[]{:T(1024)}``: the
    constant takes its shape from the literal); every other shape as read."""
    text = format_shape(inst.shape)
    return re.sub(r"E\(\d+\)", "", text) if inst.opcode == "constant" else text


@pytest.mark.integration
def test_xla_reads_the_tpu_modules_as_this_reader_does():
    """Same computations, and in each the same instructions in order: name,
    opcode, operands and result shape as XLA prints it (tiles, memory
    spaces, tuples)."""
    xla = XlaParser()
    try:
        for path in TPU_MODULES:
            text = path.read_text()
            ours, theirs = read_all(text), xla.parse(text)
            assert "computations" in theirs, (path.stem, theirs)
            # XLA wraps the op of a short async form (slice-start) in a computation
            # of its own that the text does not print
            # (HloParserImpl::CreateAsyncWrappedComputation)
            printed = {c: v for c, v in theirs["computations"].items()
                       if not c.startswith("async_wrapped")}
            assert sorted(c.name for c in ours.computations) == sorted(printed)
            for c in ours.computations:
                got = [(i.name, i.opcode, xla_print(i), list(i.operands))
                       for i in c.instructions]
                want = [(i["name"], i["opcode"], i["shape"], i["operands"])
                        for i in printed[c.name]]
                assert got == want, (path.stem, c.name)
    finally:
        xla.close()


# --- one construct at a time -------------------------------------------------------------

ALL_REDUCE = """HloModule m, replica_count=4
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[8]) -> (f32[8], f32[8]) {
  %p = f32[8]{0:T(128)} parameter(0)
  ROOT %r = (f32[8]{0:T(128)S(1)}, /*index=1*/f32[8]{0:T(128)}) all-reduce(%p, %p), channel_id=1, replica_groups=GROUPS, use_global_device_ids=true, to_apply=%add
}
"""


@pytest.mark.parametrize("groups", [
    "mesh['axis_0'=4,'axis_1'=1] {'axis_0'}",            # as the TPU compiler prints it
    "mesh['axis_0'=4,'axis_1'=1,'axis_2'=1] {'axis_0','axis_1'}",
    "mesh['a'=2,'b'=2]{'b'}",
    "mesh ['a'=4]\n    {'a'}",                               # whitespace between the tokens
    "mesh /*c*/ ['a'=4] /*d*/ {'a'}",
    "mesh['a'=4] {'a':(1)2}", "mesh['a'=8] {'a':(2)2}",  # a sub-axis (ParseAxisRef)
    "mesh['a'=8] {'a':(1)2, 'a':(4)2}",
    # ParseMesh's device order after the ']', as the TPU compiler prints it for
    # a 2x2 mesh whose devices are not in iota order
    "mesh['axis_0'=1,'axis_1'=2,'axis_2'=2], device_ids=([2,2]T(1,0)) {'axis_1'}",
    "mesh['a'=2,'b'=2], device_ids=(3,2,1,0) {'a'}",
    "mesh['a'=4],device_ids=([4]){'a'}", "mesh['a'=2,'b'=2] ,\n device_ids=\n([2, 2] T (1, 0)) {'b'}",
    "mesh['a'=4] {'0'}",                                  # an axis by its number
    "{{0,1},{2,3}}", "{ {0,1,2,3} }",                      # the older list of lists
    "[2,2]<=[4]", "[1,4] <= [4]", "[2,2]<=[2,2]T(1,0)",   # iota (ParseTileAssignment)
])
def test_replica_groups_in_every_form_xla_prints_are_read(groups):
    """``HloParserImpl::ParseCollectiveDeviceListBase``: a ``{...}`` list of
    lists, ``mesh[...]`` or ``maximal_mesh[...]`` then its axes ``{...}``,
    or an iota tile assignment."""
    module = read_all(ALL_REDUCE.replace("GROUPS", groups))
    r = module.instruction("r")
    assert " ".join(r.attribute("replica_groups").split()) == " ".join(
        groups.replace("/*c*/", "").replace("/*d*/", "").split())
    assert r.attribute("to_apply") == "%add" and len(r.shape.elements) == 2


#: Replica groups XLA refuses, and why (jaxlib 0.10.2's answer, and
#: HloParserImpl::ParseMesh / ParseAxisRef at 183fa00cb5).
REFUSED_GROUPS = {
    "mesh['a'=4]": "ParseAxisRefList", "mesh['a'=4] , {'a'}": "ParseAxisRefList",
    "mesh['a'=4] {'a'} {'a'}": "expected a name",
    # device_ids follows the ']' ("expects string" inside it)
    "mesh['a'=2,'b'=2, device_ids=(3,2,1,0)] {'a'}": "not 'name'=size",
    # device_ids= is one token (an attribute name): "expects attribute name"
    "mesh['a'=2,'b'=2], device_ids =(3,2,1,0) {'a'}": "ParseAxisRefList",
    "mesh['a'=4], device_ids=[4] {'a'}": "without its (...)",
    "mesh['a'=4], device_ids=(3,2,1) {'a'}": "3 devices for a mesh of 4",
    "mesh['a'=2,'b'=2], device_ids=([2,2]) {'a'}": "not an iota",
    "mesh['a'=4], device_ids=([4]T(0)) {'a'}": "not an iota",
    "mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)) , {'b'}": "ParseAxisRefList",
    "mesh[], device_ids=(0) {}": "ParseAxisRefList",
    "mesh['a'=4] {'b'}": "'b' is not an axis", "mesh['a'=4] {'1'}": "'1' is not an axis",
    # XLA aborts on these (CHECK failures in Mesh and AxisRef, xla/hlo/ir/mesh_and_axis.cc)
    "mesh['a'=4] {'a':(1)4}": "not a proper sub-axis", "mesh['a'=4] {'a':(4)1}": "not a proper",
    "mesh['a'=2,'b'=2] {'a','a'}": "taken twice", "mesh['a'=8] {'a':(1)4,'a':(2)2}": "twice",
    "mesh['a'=2,'a'=2] {'a'}": "axis name twice",
    "mesh['a'=4], device_ids=(0,1,2,3) {'a'}": "permutation",
    "mesh['a'=4], device_ids=(0,0,1,2) {'a'}": "permutation",
}


@pytest.mark.parametrize("groups", REFUSED_GROUPS)
def test_replica_groups_xla_refuses_are_not_read(groups):
    """The line is not read (the module is unknown), never read as
    something else, and the reason names XLA's rule."""
    module = parse_hlo(ALL_REDUCE.replace("GROUPS", groups))
    assert [s.line for s in module.skipped] == [9]
    assert REFUSED_GROUPS[groups] in module.skipped[0].reason


@pytest.mark.integration
@pytest.mark.slow
def test_xla_refuses_and_reads_the_replica_groups_as_this_reader_does():
    """jaxlib's parser reads every form read here and refuses (or aborts
    on) every form refused here, but the one :data:`READ_BY_JAXLIB`.  Slow:
    each abort costs a new parser process (about 50 s in all)."""
    read = test_replica_groups_in_every_form_xla_prints_are_read.pytestmark[0].args[1]
    xla = XlaParser()
    try:
        answers = {g: xla.parse(ALL_REDUCE.replace("GROUPS", g)) for g in [*read, *REFUSED_GROUPS]}
    finally:
        xla.close()
    assert [g for g in read if "computations" not in answers[g]] == []
    assert [g for g in REFUSED_GROUPS if "computations" in answers[g]] == list(READ_BY_JAXLIB)


#: What jaxlib 0.10.2 reads though XLA at 183fa00cb5 refuses it.
READ_BY_JAXLIB = {
    # ParseMesh there eats a ',' after the mesh before it looks for
    # device_ids=; at 183fa00cb5 it looks ahead first and leaves the ','
    "mesh['a'=4] , {'a'}": "ParseAxisRefList"}


def _bitcast_verdicts(path) -> dict:
    """(operand layout, result layout) -> the verdicts of the bitcasts
    between them (dims left out: a shard has its own)."""
    report = check_module(read_all(path.read_text()), backend="tpu")
    out: dict = {}
    for f in report.findings:
        if f.rule.startswith("bitcast-") and f.source is not None and f.target is not None:
            key = (format_shape(f.source).split("]", 1)[1], format_shape(f.target).split("]", 1)[1])
            out.setdefault(key, set()).add(f.rule)
    return report.status, out


def test_a_module_sharded_over_a_2x2_mesh_is_read_and_judged_as_its_one_device_twin():
    """The TPU compiler's module of an update step on a 2x2 mesh (its
    all-gathers grouped by mesh axes, devices in a non-iota order) is read
    to the last line, and where a bitcast's layouts are those of a bitcast
    of the same step on one device, check-hlo decides it alike."""
    sharded, status = DATA / "tpu_reader" / "v5e_sharded_2x2_update.hlo", {}
    twin = DATA / "tpu_reader" / "v5e_update_one_device.hlo"
    (status["sharded"], ours), (status["twin"], theirs) = map(_bitcast_verdicts, (sharded, twin))
    assert status == {"sharded": "proved", "twin": "proved"}
    both = ours.keys() & theirs.keys()
    assert both and {k: ours[k] for k in both} == {k: theirs[k] for k in both}


def _entry(body: str, header: str = "HloModule m") -> Module:
    return read_all(f"{header}\nENTRY %e (p: f32[8,128]) -> f32[8,128] {{\n"
                    f"  %p = f32[8,128]{{1,0:T(8,128)}} parameter(0)\n{body}\n}}\n")


@pytest.mark.parametrize("space", range(1, 7))
def test_memory_spaces_s1_to_s6_are_read_into_the_layout(space):
    m = _entry(f"  ROOT %c = f32[8,128]{{1,0:T(8,128)S({space})}} copy(%p)")
    assert m.instruction("c").shape.layout.memory_space == space


def test_index_comments_inside_a_tuple_shape_are_read_as_comments():
    elements = ", ".join(("/*index=%d*/" % k if k % 5 == 0 and k else "") + "f32[8,128]{1,0}"
                         for k in range(12))
    m = _entry(f"  ROOT %t = ({elements}) tuple(" + ", ".join(["%p"] * 12) + ")")
    t = m.instruction("t")
    assert len(t.shape.elements) == 12 and len(t.operands) == 12


def test_an_async_copy_and_its_context_are_read():
    m = _entry("  %cs = (f32[8,128]{1,0:T(8,128)S(1)}, f32[8,128]{1,0:T(8,128)}, u32[]{:S(2)}) "
               "copy-start(%p), cross_program_prefetch_index=0\n"
               "  ROOT %cd = f32[8,128]{1,0:T(8,128)S(1)} copy-done(%cs)")
    cs = m.instruction("cs")
    assert [format_shape(e) for e in cs.shape.elements] == [
        "f32[8,128]{1,0:T(8,128)S(1)}", "f32[8,128]{1,0:T(8,128)}", "u32[]{:S(2)}"]
    assert cs.attribute("cross_program_prefetch_index") == "0"
    assert m.instruction("cd").operands == ("cs",)


def test_a_backend_config_with_nested_braces_and_strings_is_one_value():
    config = ('{"flag_configs":[],"used_scoped_memory_configs":[{"memory_space":"1",'
              '"offset":"0","size":"54272"}],"s":"a}b,c=\\"d\\" \'e","k":{"x":{"y":[1,2]}}}')
    m = _entry(f"  ROOT %c = f32[8,128]{{1,0:T(8,128)}} custom-call(%p), "
               f"custom_call_target=\"tpu_custom_call\", "
               f"operand_layout_constraints={{f32[8,128]{{1,0}}}}, backend_config={config}, "
               f"metadata={{op_name=\"jit(f)/pallas_call\" stack_frame_id=5}}")
    c = m.instruction("c")
    assert c.attribute("backend_config") == config
    assert c.attribute("custom_call_target") == '"tpu_custom_call"'
    assert c.op_name == "jit(f)/pallas_call"


def test_fusion_kinds_and_called_computations_are_read():
    text = ("HloModule m, is_scheduled=true\n"
            "%fused (x: f32[8,128]) -> f32[8,128] {\n"
            "  %x = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
            "  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%x)\n}\n"
            "ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n"
            "  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
            "  %f = f32[8,128]{1,0:T(8,128)S(1)} fusion(%p), kind=kLoop, calls=%fused\n"
            "  %g = f32[8,128]{1,0:T(8,128)} fusion(%f), kind=kOutput, calls=%fused\n"
            "  ROOT %h = f32[8,128]{1,0:T(8,128)} fusion(%g), kind=kCustom, calls=%fused, "
            "backend_config={\"outer_dimension_partitions\":[\"1\"]}\n}\n")
    m = read_all(text)
    assert [(m.instruction(n).attribute("kind"), m.instruction(n).attribute("calls"))
            for n in "fgh"] == [("kLoop", "%fused"), ("kOutput", "%fused"),
                                ("kCustom", "%fused")]


def test_the_header_of_a_tpu_module_is_read():
    header = ("HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, "
              "entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, /*index=1*/"
              "bf16[7,300]{1,0:T(8,128)(2,1)S(1)})->(f32[8,128]{1,0:T(8,128)}, u32[]{:S(2)})}, "
              "allow_spmd_sharding_propagation_to_output={false,false}, num_partitions=4, "
              "frontend_attributes={arg_memory_spaces=\"0;0\",xla.sdy.meshes={mesh = "
              "#sdy.mesh<[\"x\"=1]>}}")
    m = _entry("  ROOT %c = f32[8,128]{1,0:T(8,128)} copy(%p)", header)
    assert m.name == "jit_f"
    params, result = m.entry_shapes
    assert [format_shape(s) for s in params] == ["f32[8,128]{1,0:T(8,128)}",
                                                "bf16[7,300]{1,0:T(8,128)(2,1)S(1)}"]
    assert format_shape(result) == "(f32[8,128]{1,0:T(8,128)}, u32[]{:S(2)})"


@pytest.mark.parametrize("layout", [
    "{(f32[8]{0})}",                     # no '->'
    "{(f32[8]{0} f32[8]{0})->f32[8]{0}}",  # no ',' between the parameters
    "{(f32[8]{0})->f32[8]{0} f32[8]{0}}",  # two results
    "{(f32[8]{0,1})->f32[8]{0}}",        # a layout XLA rejects
])
def test_an_entry_layout_xla_rejects_leaves_the_module_unknown(layout):
    """``HloParserImpl::ParseComputationLayout`` rejects these (and with them
    the module): the header is recorded as not read."""
    with pytest.raises(TilespecError):
        computation_layout(layout)
    module = parse_hlo(f"HloModule m, entry_computation_layout={layout}\n"
                       "ENTRY %e (p: f32[8]) -> f32[8] {\n  ROOT %p = f32[8]{0} parameter(0)\n}\n")
    assert module.skipped and "entry_computation_layout" in module.skipped[0].reason


def test_an_entry_layout_may_end_its_parameters_with_a_comma():
    """``ParseComputationLayout`` loops until ``)``: a ``,`` may end the list."""
    params, _ = computation_layout("{(f32[8]{0}, )->f32[8]{0}}")
    assert len(params) == 1


def test_shardings_frontend_attributes_aliasing_and_statistics_are_read():
    m = _entry('  %s = f32[8,128]{1,0:T(8,128)} copy(%p), sharding={devices=[4,1]<=[4]}, '
               'frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{}, {}]>"}\n'
               '  %t = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(%s, %p), '
               'sharding={{replicated}, {maximal device=0}}\n'
               '  %u = f32[8,128]{1,0:T(8,128)} custom-call(%s), custom_call_target="foo", '
               'output_to_operand_aliasing={{}: (0, {})}, '
               'statistics={visualizing_index=1,stat-index-1=0.5}\n'
               '  ROOT %r = f32[8,128]{1,0:T(8,128)} add(%u, %s), '
               'metadata={op_name="jit(f)/add" source_file="/a.py" source_line=3 '
               'stack_frame_id=7}')
    assert m.instruction("s").attribute("sharding") == "{devices=[4,1]<=[4]}"
    assert m.instruction("t").attribute("sharding") == "{{replicated}, {maximal device=0}}"
    assert m.instruction("u").attribute("output_to_operand_aliasing") == "{{}: (0, {})}"
    assert m.instruction("u").attribute("statistics") == \
        "{visualizing_index=1,stat-index-1=0.5}"
    assert m.instruction("r").op_name == "jit(f)/add"
