from decimal import Decimal

import pytest

from inventory.models import Item, Warehouse


@pytest.fixture
def apple():
    return Item("APL-001", "Apple", Decimal("0.40"))


def test_label(apple):
    assert apple.label == "Apple (APL-001)"


def test_add_and_total(apple):
    house = Warehouse("north")
    house.add(apple, 10)
    assert house.total([apple]) == Decimal("4.00")


def test_remove_clamps(apple):
    house = Warehouse("south")
    house.add(apple, 1)
    house.remove(apple, 5)
    # TODO: this documents the FIXME in Warehouse.remove
    assert house.stock["APL-001"] == 0


def test_describe_unicode():
    house = Warehouse("café", city="Zürich")
    assert "«café»" in house.describe()
