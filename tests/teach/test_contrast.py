"""One array in two layouts with one element outlined (teach.draw.contrast)."""

from tilespec.spec import parse_array_shape
from tilespec.teach.draw.contrast import contrast, marked


def test_the_marked_element_is_shown_in_each_picture_and_outlined():
    shapes = [parse_array_shape("f32[4,200]{1,0:T(128)}"),
              parse_array_shape("f32[4,200]{1,0:T(4,128)}")]
    text = contrast(shapes, (0, 128), ["line one"])
    assert marked(text) == [(0, 128), (0, 128)]
    assert 'g.cell[data-index="0,128"] rect{stroke:' in text
    # each picture labels the element with its own offset
    assert 'data-offset="128" data-index="0,128"' in text
    assert 'data-offset="512" data-index="0,128"' in text


def test_an_element_a_picture_elides_is_not_claimed_as_shown():
    shapes = [parse_array_shape("f32[4,1000]{1,0:T(128)}")]
    assert marked(contrast(shapes, (0, 700))) == []
