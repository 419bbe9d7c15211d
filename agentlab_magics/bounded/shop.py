"""Lucy's shop and its Chapter 2 tools: stock, supplier prices and replenishment drafts.

Need is ``max(0, reorder_point - on_hand)``: vanilla needs 6 at 250 cents, strawberry 4 at
275 cents, chocolate is above its reorder point. A draft is a calculation, never a purchase,
and is refused unless its quantity is exactly the product's need.
"""

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentlab_magics.bounded.dispatch import Dispatcher, ExecutableTool, ToolCall

__all__ = [
    "PRICES",
    "SHOP",
    "DraftArguments",
    "NoArguments",
    "ProductArguments",
    "ToolCall",
    "build_tools",
]

PRICES = {"SKU-VANILLA": 250, "SKU-STRAWBERRY": 275, "SKU-CHOCOLATE": 260}

SHOP = {
    "currency": "USD",
    "products": [
        {"sku": "SKU-VANILLA", "name": "Vanilla", "on_hand": 2, "reorder_point": 8},
        {"sku": "SKU-STRAWBERRY", "name": "Strawberry", "on_hand": 3, "reorder_point": 7},
        {"sku": "SKU-CHOCOLATE", "name": "Chocolate", "on_hand": 9, "reorder_point": 5},
    ],
    "prices": PRICES,
}


class NoArguments(BaseModel):
    """A tool that takes nothing accepts exactly ``{}``."""

    model_config = ConfigDict(strict=True, extra="forbid")


class ProductArguments(BaseModel):
    """One product, named by SKU."""

    model_config = ConfigDict(strict=True, extra="forbid")

    sku: str = Field(min_length=1)


class DraftArguments(BaseModel):
    """One product and a positive whole quantity."""

    model_config = ConfigDict(strict=True, extra="forbid")

    sku: str = Field(min_length=1)
    quantity: int = Field(gt=0, le=1000)


def build_tools(shop: dict[str, Any]) -> Dispatcher:
    """list_stock, supplier and draft_order bound to a private copy of ``shop``, all allowed."""
    snapshot = copy.deepcopy(shop)
    currency = snapshot["currency"]
    prices = snapshot["prices"]
    rows = {row["sku"]: row for row in snapshot["products"]}

    def needed(sku: str) -> int:
        row = rows[sku]
        return max(0, row["reorder_point"] - row["on_hand"])

    def unit_cents(sku: str) -> int:
        if sku not in rows or sku not in prices:
            raise ValueError(f"unknown SKU {sku!r}")
        return prices[sku]

    def list_stock(_: NoArguments) -> dict[str, Any]:
        products = [row | {"needed": needed(row["sku"])} for row in snapshot["products"]]
        return {"currency": currency, "products": products}

    def supplier(arguments: ProductArguments) -> dict[str, Any]:
        return {"sku": arguments.sku, "unit_cents": unit_cents(arguments.sku), "currency": currency}

    def draft_order(arguments: DraftArguments) -> dict[str, Any]:
        price = unit_cents(arguments.sku)
        need = needed(arguments.sku)
        if arguments.quantity != need:
            raise ValueError(f"{arguments.sku} needs {need}, not {arguments.quantity}")
        return {
            "sku": arguments.sku,
            "quantity": arguments.quantity,
            "unit_cents": price,
            "total_cents": price * arguments.quantity,
            "currency": currency,
        }

    tools = [
        ExecutableTool(
            "list_stock",
            "List each product's stock on hand, reorder point and quantity needed.",
            NoArguments,
            list_stock,
        ),
        ExecutableTool(
            "supplier",
            "Look up the supplier's unit price, in cents, for one SKU.",
            ProductArguments,
            supplier,
        ),
        ExecutableTool(
            "draft_order",
            "Calculate a replenishment draft for exactly the needed quantity; nothing is bought.",
            DraftArguments,
            draft_order,
        ),
    ]
    return Dispatcher(tools, allowed=[tool.name for tool in tools])
