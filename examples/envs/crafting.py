import random

HINT = ("Recipes: plank <- wood; stick <- plank; pickaxe <- stick + stone; iron <- ore + plank (ore needs a "
        "pickaxe to gather); glass <- sand + plank; sword <- iron + stick; lantern <- glass + iron.")

RAW = ["wood", "stone", "sand", "ore"]
SHAPES = {"plank": ["wood"], "stick": ["plank"], "pickaxe": ["stick", "stone"], "iron": ["ore", "plank"],
          "glass": ["sand", "plank"], "sword": ["iron", "stick"], "lantern": ["glass", "iron"]}


class CraftingEnv:
    """Resource crafting with hidden recipes: ingredients are revealed only by trying to craft."""

    max_turns = 50

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.recipes = {item: {ing: rng.randint(1, 2) for ing in ings} for item, ings in SHAPES.items()}
        self.recipes["sword"] = {"iron": 1, "stick": 1}          # keeps every goal within reach of max_turns
        self.recipes["lantern"] = {"glass": 1, "iron": 1}
        self.target = rng.choice(["pickaxe", "sword", "lantern"])
        self.inv = {name: 0 for name in RAW + list(SHAPES)}
        self.inv["wood"], self.inv["stone"] = rng.randint(0, 3), rng.randint(0, 2)
        self.crafted = set()
        self.turn = 0
        return (
            f"Goal: craft a {self.target}. Actions: 'gather <wood|stone|sand|ore>', 'craft <item>'. Recipes are "
            "not shown: trying to craft something you lack the ingredients for tells you what it needs. "
            f"You have {self.max_turns} turns. " + self._inventory()
        ), {}

    def _inventory(self):
        held = ", ".join(f"{n} {k}" for k, n in self.inv.items() if n)
        return "Inventory: " + (held or "empty") + "."

    def step(self, action):
        self.turn += 1
        words = str(action).strip().lower().replace(",", " ").split()
        names = [c for w in words[1:] for c in (w, w[:-1]) if c in self.inv]   # "planks" -> "plank"
        item = names[0] if names else None
        verb = words[0] if words else ""
        reward = 0.0
        if verb == "gather" and item in RAW:
            if item == "ore" and not self.inv["pickaxe"]:
                obs = "The ore is too hard to break by hand."
            else:
                self.inv[item] += 1
                obs = f"You gather 1 {item}."
        elif verb == "craft" and item in SHAPES:
            recipe = self.recipes[item]
            if all(self.inv[k] >= n for k, n in recipe.items()):
                for k, n in recipe.items():
                    self.inv[k] -= n
                self.inv[item] += 1
                if item not in self.crafted:
                    self.crafted.add(item)
                    reward = 0.05
                if item == self.target:
                    return f"You craft a {item}. Goal reached!", reward + 1.0, True, False, {"success": True}
                obs = f"You craft 1 {item}."
            else:
                needs = ", ".join(f"{n} {k}" for k, n in recipe.items())
                obs = f"Not enough ingredients: 1 {item} needs {needs}."
        else:
            obs = "Not understood: 'gather <wood|stone|sand|ore>' or 'craft <item>'."
        obs += " " + self._inventory()
        truncated = self.turn >= self.max_turns
        return obs, reward, False, truncated, {"success": False}

    def _plan(self, inv, item, out):
        """Append the actions that make one more `item` to `out`, updating the simulated inventory."""
        if item in RAW:
            if item == "ore" and not inv["pickaxe"]:
                self._plan(inv, "pickaxe", out)
            out.append("gather " + item)
        else:
            for ing, n in self.recipes[item].items():
                while inv[ing] < n:
                    self._plan(inv, ing, out)
            for ing, n in self.recipes[item].items():
                inv[ing] -= n
            out.append("craft " + item)
        inv[item] += 1

    def oracle(self):
        out = []
        self._plan(dict(self.inv), self.target, out)
        return out[0]
