"""Plays the learner's completed Chapter 3 file: ``vars(chapter3)`` stands in for run_path's dict.

It exposes the learner's loop and limits (here the runtime's own, which the unit checks the
learner's against) and the Chapter 2 shop tools as the ``shop_tools`` dictionary.
"""

from agentlab_magics.bounded import shop
from agentlab_magics.bounded.limits import Limits
from agentlab_magics.bounded.loop import run_loop

__all__ = ["Limits", "run_loop", "shop_tools"]

shop_tools = {
    "SHOP": shop.SHOP,
    "PRICES": shop.PRICES,
    "build_tools": shop.build_tools,
    "ToolCall": shop.ToolCall,
    "NoArguments": shop.NoArguments,
    "ProductArguments": shop.ProductArguments,
    "DraftArguments": shop.DraftArguments,
}
