"""A realistic demo vault: a family home run by seven agents, dated relative to one day."""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_app.core import config, daily, decay, formats, layout, vault

SEED = 20260131  # the design's date: same seed and same `today`, same vault
ACTION = "demo.create"
AGENT_IDS = ("manager", "finance", "maintenance", "security", "contractors", "projects", "janitor")
CATEGORIES = {
    "r": "relationship",
    "m": "milestone",
    "s": "status",
    "p": "preference",
    "c": "context",
}
# Odds that a fact was read in the past week, by PARA category (less for older facts).
HEAT = {"projects": 0.5, "areas": 0.35, "resources": 0.25, "archives": 0.02}
AGENT_HEAT = 0.45
CONFIDENCES = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

_LINE = re.compile(r"^([rmspc])(\d+)?\|(.+)$", re.DOTALL)
_DAY_TOKEN = re.compile(r"\{([+-]\d+)\}")

Line = str | tuple[str, ...]


@dataclass(frozen=True)
class Entity:
    """One entity of the demo and its hand-written facts.

    A fact line reads `<category letter><age>|<text>`: `r` relationship, `m` milestone,
    `s` status, `p` preference, `c` context; the optional age is how many days ago the fact
    was written (else a random day within `span`). A tuple of lines is a chain, oldest
    first: each line supersedes the one before it. `{+N}` / `{-N}` in a text is the date N
    days after / before today. `keys` are the words that make other facts link here.
    """

    address: str
    title: str
    agents: str  # who writes its facts, space-separated; the first one writes most
    span: tuple[int, int]  # (newest, oldest) age in days of facts without an age
    keys: tuple[str, ...]
    blurb: str
    facts: tuple[Line, ...]


@dataclass(frozen=True)
class Series:
    """A recurring record (a bill, a visit, a check), `count` of them `every` days apart."""

    address: str
    category: str
    every: int
    count: int
    latest: int  # age in days of the most recent record
    origin: str  # what the record was extracted from: "bank-statement", "system-check"…
    texts: tuple[str, ...]  # "{date}" and "{amount}" are filled in
    amount: tuple[float, float, float] = (0.0, 0.0, 1.0)  # low, high, step


@dataclass(frozen=True)
class _Draft:
    """A fact about to be written: category, text, age in days, and its origin if a record."""

    category: str
    text: str
    age: int
    origin: str | None = None


# fmt: off
# -- the knowledge graph --------------------------------------------------------------------

ENTITIES: tuple[Entity, ...] = (
    # projects ------------------------------------------------------------------------------
    Entity("projects/bathroom-remodel", "Upstairs bathroom remodel",
           "projects contractors finance", (2, 75), ("bathroom", "vanity"),
           "Full remodel of the upstairs bathroom: tub-shower, vanity, tile and every supply "
           "line. Northside Renovations is the general contractor; Marcus Bell does the plumbing.",
           (
        "m70|Alex and Jordan decided to remodel the upstairs bathroom this year.",
        ("s70|The bathroom remodel budget is $12,000.",
         "s8|The bathroom remodel budget was raised to $14,500 to keep the porcelain tile.",
         "s7|The bathroom remodel is capped at $15,000 after the budget review with Jordan."),
        "r7|Northside Renovations is the general contractor; Sofia Nguyen runs the job.",
        "r12|Marcus Bell will do the rough-in plumbing and replace every supply line.",
        "c13|A slow leak from the vanity supply line stained the kitchen ceiling below.",
        "s12|The leaking fitting under the vanity was replaced; the ceiling is drying out.",
        ("m7|Demolition of the bathroom is planned for {+21}.",
         "m2|Bathroom demolition moved to {+24} because the tile delivery slipped."),
        "p40|Alex wants a tub-shower combo so the kids can still take baths.",
        "p38|Jordan wants matte black fixtures in the bathroom.",
        "p30|Floor tile: 12x24 porcelain in warm grey; walls: white subway tile.",
        "s6|The bathroom contract is signed; the 30% deposit of $4,350 is paid.",
        "c8|Oakline Builders quoted $16,900 for the same scope and was not chosen.",
        "m1|The leak site under the vanity has stayed dry for eleven days.",
        "c20|The bathroom floor joists were checked during the inspection and are sound.",
        "p25|Alex wants the exhaust fan on a humidity sensor and ducted outside.",
        "c5|The bathroom will be out of use for about five weeks; everyone shares downstairs.",
    )),
    Entity("projects/roof-replacement", "Roof replacement", "projects contractors",
           (2, 30), ("roof", "shingles"),
           "The 22-year-old asphalt shingle roof lost shingles in the storm. Summit Roofing "
           "will replace it; Harbor Mutual covers part of the storm damage.",
           (
        "c13|The storm blew 14 shingles off the north slope of the roof.",
        "c200|The roof is about 22 years old: asphalt shingles over plywood decking.",
        "r11|Greg Lindqvist noticed the missing shingles from his yard and told Alex.",
        "s10|The roof inspection found the underlayment intact except at the chimney flashing.",
        ("s6|Summit Roofing quoted $18,400 for a full replacement, architectural shingles.",
         "s3|Summit Roofing revised the roof quote to $17,650 without the ridge vent."),
        "c6|A spot repair of the roof would cost $1,250 and buy one or two years.",
        "m3|Alex chose a full roof replacement and paid Summit Roofing a $2,000 deposit.",
        ("m6|Summit Roofing could start the roof as early as {+14}.",
         "m3|Roof work is scheduled for the week of {+17}, weather permitting."),
        "p5|Alex wants the roof finished before any solar panels go on.",
        "r4|Harbor Mutual approved $3,100 for the storm damage to the roof.",
        "p9|Alex prefers charcoal shingles to match the shutters.",
        "c2|The driveway must be clear for the roofing dumpster on the first day.",
        "c13|The attic was checked after the storm: insulation dry, no roof leak inside.",
    )),
    Entity("projects/solar-evaluation", "Solar evaluation", "projects finance",
           (4, 120), ("solar", "panels"),
           "Deciding whether to put solar panels on the new roof. BrightPath Solar has made a "
           "proposal; the decision waits until the roof is replaced.",
           (
        "c115|Alex started looking into rooftop solar after a neighbor's install.",
        "r40|BrightPath Solar surveyed the house: the south slope gets 5.1 sun hours a day.",
        "s4|BrightPath Solar proposed a 7.2 kW system for $21,600 before incentives.",
        "c4|The federal tax credit would cover 30% of the solar system cost.",
        "c4|Estimated payback for the solar system is about 9 years.",
        "s7|The solar decision is on hold until the roof replacement is finished.",
        "p60|Alex will not sign a solar lease or PPA: outright purchase or a loan only.",
        "p30|Jordan is worried about how panels would look on the street-facing slope.",
        "c90|Riverside Utilities pays net metering at the retail rate for systems under 10 kW.",
        "c20|A battery would add about $9,000 and is not in the first proposal.",
    )),
    Entity("projects/backyard-garden", "Backyard garden", "projects manager",
           (15, 200), ("garden", "raised beds"),
           "Raised vegetable beds and a pollinator strip along the back fence, built with "
           "Greenleaf Landscaping.",
           (
        "m150|Greenleaf Landscaping built three cedar raised beds along the back fence.",
        "p140|Alex wants no chemical pesticides anywhere in the garden.",
        "c120|The back fence line gets full sun from 10:00 to 17:00.",
        "s90|Tomatoes, peppers and basil did well; the zucchini got powdery mildew.",
        "p60|Maya wants her own small bed for strawberries next season.",
        "r100|Greenleaf Landscaping quoted $1,900 for a pollinator strip of native perennials.",
        "s30|The garden beds were mulched with straw after the last harvest.",
        "c45|The drip irrigation timer runs at 06:30 for 20 minutes, three days a week.",
        "p20|Alex plans next season's garden in late winter, not before.",
        "c70|The compost bin by the shed will be ready to spread next season.",
    )),
    Entity("projects/basement-waterproofing", "Basement waterproofing", "maintenance projects",
           (10, 260), ("sump pump", "downspout", "downspouts", "French drain", "dehumidifier"),
           "Keeping the northeast corner of the basement dry: grading, downspout extensions, "
           "a new sump pump and maybe an interior drain.",
           (
        "c250|The northeast corner of the basement gets damp after heavy rain.",
        "s200|Downspout extensions now carry water 6 feet from the north foundation wall.",
        "c180|Basement humidity runs 60-65% in summer without the dehumidifier.",
        "s170|A 50-pint dehumidifier runs in the basement from May to October.",
        ("s120|The sump pump is a 1/3 hp pedestal model from 2014.",
         "s45|The sump pump was replaced with a 1/2 hp submersible with a battery backup."),
        "c13|The basement stayed dry through the storm: the downspout extensions work.",
        "s60|An interior French drain quote of $7,800 is parked until the roof is paid for.",
        "p100|Alex wants a water alarm by the sump pump that notifies both phones.",
        "m44|A water alarm is installed by the sump pump; it alerts Alex and Jordan.",
        "c150|The yard slopes slightly toward the house on the north side.",
    )),
    Entity("projects/home-office", "Home office conversion", "projects contractors",
           (2, 50), ("home office", "spare room"),
           "Turning the small spare bedroom into Alex's home office: two new circuits, better "
           "light and a built-in desk.",
           (
        "c45|Alex works from home three days a week and uses the dining table for now.",
        "m30|The spare room will become Alex's home office; guests get the basement sofa bed.",
        "r2|Elena Ruiz quoted $680 for two new 20 A circuits in the home office.",
        "p25|Alex wants a built-in desk along the window wall and no overhead glare.",
        "p20|Alex prefers warm-white (2700 K) lighting in the home office.",
        "s10|The spare room has been emptied; the old furniture went to Helen.",
        "c2|The home office needs an Ethernet drop; the FiberLink router is in the hallway.",
        "s1|The home office paint is picked: a soft sage green, eggshell.",
        "p15|Alex wants a door that closes properly: client calls happen in there.",
    )),
    Entity("projects/emergency-fund", "Emergency fund", "finance",
           (20, 300), ("emergency fund",),
           "A cash reserve of six months of expenses in a high-yield savings account at First "
           "County Bank.",
           (
        "m290|The emergency fund was opened as a high-yield savings account at First County.",
        ("s280|The emergency fund target is three months of expenses ($20,400).",
         "s100|The emergency fund target was raised to six months of expenses ($40,800)."),
        "p260|Alex wants the emergency fund kept in cash, never invested.",
        "p200|Transfers to the emergency fund happen on the 1st, right after payday.",
        "s25|The emergency fund holds about $27,300, two thirds of the target.",
        "c3|The roof deposit was paid from checking, not from the emergency fund.",
        "c50|The emergency fund savings account pays 4.1% APY.",
        "p60|Alex redirected the old car loan payment ($420) to the emergency fund.",
    )),
    # areas ---------------------------------------------------------------------------------
    Entity("areas/household-budget", "Household budget", "finance",
           (5, 365), ("household budget", "budget review"),
           "The household's monthly budget, reviewed by Alex and Jordan on the first weekend "
           "of each month.",
           (
        ("s360|The monthly household budget is $6,400 after savings.",
         "s170|The monthly household budget was raised to $6,800 after Jordan's raise."),
        "p340|Alex and Jordan do the budget review together on the first weekend of the month.",
        "p300|Alex likes the budget summary as a one-page table, biggest variances first.",
        "c11|Dining out went $140 over budget last month.",
        "s11|The home repairs category is at 78% of its yearly allocation.",
        "m7|At the budget review Alex and Jordan paused solar and capped the bathroom.",
        "c200|Groceries average about $950 a month for the family of four.",
        "p180|Jordan wants a $500 monthly buffer left unallocated.",
        "c90|Home repairs have a yearly allocation of $9,000.",
        "s30|Kids' activities cost about $260 a month (piano and soccer).",
        "p7|The family will try two takeout nights a week at most.",
    )),
    Entity("areas/home-insurance", "Home insurance", "finance security",
           (3, 330), ("insurance", "deductible", "homeowners policy", "claim"),
           "The homeowners policy with Harbor Mutual, the agent Dana Whitaker, and the storm "
           "claim.",
           (
        "r320|The homeowners policy is with Harbor Mutual; the agent is Dana Whitaker.",
        "c320|The homeowners policy renews every year on March 1.",
        ("s320|The homeowners policy deductible is $500.",
         "s80|The deductible was raised to $1,000 to lower the premium."),
        ("s320|The annual homeowners premium is $1,980.",
         "s80|The annual homeowners premium dropped to $1,760 with the higher deductible."),
        "c150|Dwelling coverage is $420,000, with replacement cost on the roof.",
        "m9|Storm damage claim HM-2417-88 was opened with Harbor Mutual.",
        ("s9|Claim HM-2417-88 is waiting for an adjuster visit.",
         "s6|The adjuster visit for claim HM-2417-88 is booked.",
         "s4|The adjuster approved $3,100 on claim HM-2417-88 for the roof storm damage."),
        "s4|The claim payment ($2,100 after the deductible) comes by check within two weeks.",
        "p200|Alex wants every insurance document scanned into the vault resources.",
        "c60|Water backup coverage has been included since the last renewal.",
        "p10|Dana Whitaker wants damage photos by email, not by text message.",
    )),
    Entity("areas/home-security", "Home security", "security",
           (3, 300), ("alarm code", "alarm codes", "alarm system", "camera", "cameras",
                      "smart lock"),
           "Alarm system monitored by Guardline Security, three cameras, and smart locks on "
           "the front and side doors.",
           (
        "r290|The alarm system is monitored by Guardline Security.",
        "c290|The alarm has 18 sensors: doors, ground-floor windows, motion and glass-break.",
        ("p270|The alarm codes are rotated every six months.",
         "p90|The alarm codes are rotated every quarter."),
        ("m100|The alarm codes were rotated on {-100}.",
         "m9|The alarm codes were rotated on {-9}; the new codes were given by voice only."),
        "p250|Codes and passwords are never written in the vault or in any note.",
        "c200|Cameras cover the front porch, the driveway and the back porch.",
        "s3|The back porch camera went offline; a reboot and a firmware update fixed it.",
        "c12|A motion alert at 02:14 was a raccoon at the trash bins on the back porch.",
        "p150|At night Alex wants perimeter alerts only, never interior motion (Biscuit).",
        "r120|Greg Lindqvist has a spare key and is the first local contact on the call list.",
        "s60|The front door smart lock batteries were replaced.",
        "c13|The alarm panel ran on battery for 4 minutes during the storm and recovered.",
    )),
    Entity("areas/home-maintenance", "Home maintenance", "maintenance",
           (2, 365), ("furnace", "water heater", "gutters"),
           "Upkeep of the house, its systems and appliances. The maintenance agent keeps the "
           "seasonal schedule.",
           (
        "c360|The house is a 1968 two-story colonial of about 2,100 sq ft.",
        "c300|The furnace is a 2016 gas furnace, 96% efficient, serviced each October.",
        "c300|The water heater is a 50-gallon gas tank installed in 2015.",
        "p280|Alex wants a heads-up a week before any contractor visit.",
        "s40|The furnace service found a weak flame sensor; replace it within a year.",
        "s30|The gutters were cleaned and the downspouts flushed.",
        "c200|The main water shutoff is in the basement by the front wall, behind the shelf.",
        "s5|The sump pump was tested; the battery backup holds a charge.",
        "p220|Alex batches small repairs into one handyman day per quarter.",
        "c20|The water heater is near the end of its expected life (about 12 years).",
        "s12|Marcus Bell fixed the leaking supply line under the upstairs vanity.",
        "s1|The kitchen ceiling stain is dry; prime and paint it after the bathroom work.",
    )),
    Entity("areas/utilities", "Utilities", "finance",
           (30, 360), ("utility bill", "utility bills", "Lakeshore Gas"),
           "Electricity and water from Riverside Utilities, gas from Lakeshore Gas, internet "
           "from FiberLink.",
           (
        "r350|Electricity and water come from Riverside Utilities.",
        "r350|Natural gas comes from Lakeshore Gas.",
        "p340|Every utility bill is on autopay from the joint checking account.",
        "c200|Electricity use peaks in July and August because of the air conditioning.",
        "p150|Alex wants an alert when a utility bill is 25% above the same month last year.",
        "c100|A time-of-use electricity plan would save about $12 a month.",
        "c60|The smart meter shows the dryer and the dehumidifier as the biggest loads.",
    )),
    Entity("areas/vehicles", "Vehicles", "maintenance finance",
           (10, 330), ("Outback", "Prius"),
           "The family's two cars: a 2019 Subaru Outback and a 2022 Toyota Prius.",
           (
        "c320|The family has a 2019 Subaru Outback and a 2022 Toyota Prius.",
        "r300|Jordan drives the Prius to the hospital; Alex drives the Outback.",
        "s100|The Outback had its 60,000-mile service; next oil change at 65,000 miles.",
        "r250|Both cars are insured with Harbor Mutual, bundled with the home policy.",
        "m60|The car loan on the Outback is paid off.",
        ("s20|The Prius needs new tires; the quote is $640.",
         "s15|New tires were fitted on the Prius for $610."),
        "p200|Alex takes the Subaru to the dealer and the Prius to the independent shop.",
        "c40|The Outback registration renews in October.",
    )),
    Entity("areas/taxes", "Taxes", "finance",
           (20, 365), ("tax return", "tax credit", "property tax", "tax documents"),
           "Income and property taxes, and the documents Priya Shah needs each spring.",
           (
        "r360|Priya Shah (CPA) prepares the household's tax return.",
        "c340|Property tax is about $6,900 a year, paid through the mortgage escrow.",
        "p300|Alex wants the tax documents in one folder by the end of February.",
        "m250|Last year's federal return was filed on time with a $1,240 refund.",
        "c100|Home office costs may be deductible against Alex's consulting income.",
        "c60|Keep the receipts of energy improvements (roof, solar) for possible credits.",
        "s30|Priya Shah asked for the year's donation receipts early.",
        "p200|Alex and Jordan file jointly.",
        "c20|Priya Shah says the new roof is a capital improvement, not a deduction.",
    )),
    Entity("areas/family-schedule", "Family schedule", "manager",
           (1, 200), ("family calendar", "night shift", "night shifts"),
           "Who is where and when: Jordan's shifts, school, piano and soccer.",
           (
        "c190|Jordan works three 12-hour night shifts a week at St. Anne's Hospital.",
        "p180|Nothing is scheduled on Jordan's sleep mornings after a night shift.",
        "c150|Maya has piano lessons on Tuesdays at 16:30.",
        "c150|Theo has soccer practice on Wednesdays and games on Saturday mornings.",
        "p120|Contractor visits go on Alex's work-from-home days: Monday, Wednesday, Friday.",
        "m5|Maya's piano recital is on {+4} at 18:00.",
        "s3|Helen will stay with the family during the roof week.",
        "c90|School drop-off is at 08:10; Alex drops off, Jordan picks up on days off.",
        "p60|Sunday afternoons stay free of errands.",
        "c30|Jordan's shifts this month fall mostly from Thursday to Saturday.",
    )),
    Entity("areas/pets", "Pets", "manager",
           (5, 300), ("Biscuit",),
           "Biscuit, the family's five-year-old beagle mix.",
           (
        "c290|Biscuit is a five-year-old beagle mix adopted from the county shelter.",
        "c250|Biscuit eats grain-free kibble twice a day, one cup each time.",
        "m120|Biscuit had his annual shots and a clean checkup.",
        "p200|Contractors must keep the side gate closed: Biscuit gets out.",
        "c100|Biscuit is afraid of thunder and hides in the basement during storms.",
        "s13|Biscuit was anxious during the storm; the calming vest helped.",
        "r150|Greg Lindqvist walks Biscuit when the family travels.",
        "r280|Biscuit's vet is Dr. Okafor at the Maple Street Animal Clinic.",
    )),
    # people --------------------------------------------------------------------------------
    Entity("areas/people/jordan", "Jordan Moreau", "manager",
           (5, 365), ("Jordan",),
           "Alex's partner, an ICU nurse who works night shifts.",
           (
        "r360|Jordan Moreau is Alex's partner; they have owned the house together since 2017.",
        "c300|Jordan is an ICU nurse at St. Anne's Hospital.",
        "p250|Jordan prefers text messages to phone calls during the day.",
        "p200|Jordan wants to be asked before any purchase over $500.",
        "s170|Jordan got a raise at the hospital.",
        "c7|Jordan agreed to the $15,000 cap on the bathroom remodel.",
        "p30|Jordan does not want to talk about money right after a night shift.",
        "p15|Jordan wants the final say on colors and finishes.",
    )),
    Entity("areas/people/maya", "Maya Moreau", "manager",
           (5, 300), ("Maya",),
           "The older child, eleven: piano, books and strawberries.",
           (
        "r300|Maya is Alex and Jordan's daughter, 11 years old.",
        "c280|Maya is allergic to tree nuts; an epinephrine pen is in the kitchen drawer.",
        "c150|Maya takes piano lessons on Tuesdays.",
        "p60|Maya wants a strawberry bed in the garden.",
        "m5|Maya plays at a piano recital on {+4}.",
        "p10|Maya's room is under the roof; she asked for quiet evenings during the roof work.",
        "c|Maya is in sixth grade at Alder Middle School.",
        "p100|Maya reads before bed and wants her room quiet from 21:00.",
    )),
    Entity("areas/people/theo", "Theo Moreau", "manager",
           (5, 300), ("Theo",),
           "The younger child, seven: soccer and Lego.",
           (
        "r300|Theo is Alex and Jordan's son, 7 years old.",
        "c150|Theo plays in the under-8 soccer league on Saturday mornings.",
        "p100|Theo goes to bed at 19:45; no loud work in the house after that.",
        "c|Theo is in second grade at Alder Elementary.",
        "c10|Theo is excited to watch the roofers and the dumpster truck.",
        "s5|Theo scored his first goal at soccer practice.",
        "c200|Theo does not like the noise of the sump pump and avoids the basement.",
    )),
    Entity("areas/people/marcus-bell", "Marcus Bell (plumber)", "maintenance contractors",
           (1, 330), ("Marcus", "plumber"),
           "Licensed plumber and owner of Bell & Sons Plumbing; the household's plumber since "
           "2019.",
           (
        "r330|Marcus Bell is the household's plumber and owns Bell & Sons Plumbing.",
        "c300|Marcus Bell is licensed and insured and has worked on the house since 2019.",
        "p250|Marcus prefers a phone call to email and answers before 08:00.",
        "s12|Marcus Bell came the same day for the leak and replaced the fitting ($240).",
        "r12|Marcus will do the bathroom rough-in as a subcontractor to Northside Renovations.",
        "c12|Marcus recommends replacing all the old supply lines during the remodel.",
        "m1|Marcus confirmed the rough-in plumbing dates with Sofia Nguyen.",
        "c200|Marcus charges $95 an hour plus a $60 call-out fee.",
        "p150|Marcus asks for the area around the water heater to be cleared before he comes.",
    )),
    Entity("areas/people/elena-ruiz", "Elena Ruiz (electrician)", "contractors maintenance",
           (2, 300), ("Elena", "electrician"),
           "Licensed electrician; upgraded the panel and wires the new home office.",
           (
        "r300|Elena Ruiz is the household's electrician.",
        "m280|Elena Ruiz upgraded the electrical panel to 200 A.",
        "r2|Elena Ruiz quoted $680 for two new circuits in the home office.",
        "p200|Elena only quotes after a site visit, never over the phone.",
        "c100|Elena is usually booked about three weeks out.",
        "r40|Elena Ruiz can handle the interconnection if BrightPath Solar installs.",
        "c280|Elena Ruiz charges $110 an hour; the site visit for a quote is free.",
    )),
    Entity("areas/people/dana-whitaker", "Dana Whitaker (insurance agent)", "finance",
           (4, 320), ("Dana",),
           "The household's agent at Harbor Mutual, for the house and both cars.",
           (
        "r320|Dana Whitaker is the Harbor Mutual agent for the home and car policies.",
        "p200|Dana Whitaker answers email within a day; she calls only for urgent claims.",
        "m9|Dana Whitaker helped open the storm damage claim.",
        "c10|Dana said storm damage to the roof is likely covered, minus the deductible.",
        "p10|Dana wants damage photos by email with the claim number in the subject.",
        "c80|Dana suggested raising the deductible to lower the premium.",
        "c310|Dana Whitaker has been the household's agent since the house was bought.",
    )),
    Entity("areas/people/greg-lindqvist", "Greg Lindqvist (neighbor)", "manager security",
           (3, 350), ("Greg",),
           "Next-door neighbor to the east, a retired carpenter who keeps a spare key.",
           (
        "r350|Greg Lindqvist lives next door to the east with his wife Anna.",
        "r120|Greg keeps a spare house key and is on the alarm call list.",
        "c11|Greg noticed the missing shingles after the storm.",
        "p100|Greg likes a heads-up before loud work or a dumpster.",
        "c200|Greg is a retired carpenter and happily lends tools.",
        "r150|Greg walks Biscuit when the family is away.",
        "c3|Greg lets the family park on his side of the driveway during the roof work.",
        "p200|Greg and Anna prefer a knock on the door to a text.",
    )),
    Entity("areas/people/rosa-mendes", "Rosa Mendes (house cleaner)", "manager finance",
           (9, 300), ("Rosa",),
           "Cleans the house every other Thursday morning.",
           (
        "r300|Rosa Mendes cleans the house every other Thursday morning.",
        "p250|Rosa prefers payment by bank transfer on the day of cleaning.",
        "p200|Rosa brings her own supplies except the hardwood floor cleaner.",
        "c9|Rosa has alarm access and was given the new code in person.",
        "p150|Rosa asks that Biscuit stay in the yard while she mops.",
        "c280|Rosa has cleaned for the family since Theo was born.",
    )),
    Entity("areas/people/priya-shah", "Priya Shah (accountant)", "finance",
           (30, 340), ("Priya",),
           "The CPA who prepares the household's taxes.",
           (
        "r340|Priya Shah is the household's CPA.",
        "p300|Priya Shah wants documents through her client portal, not by email.",
        "c250|Priya charges a flat $650 for the joint return.",
        "c60|Priya suggested tracking home office costs from the start of the conversion.",
        "s30|Priya asked for the donation receipts before the end of the year.",
        "m250|Priya Shah filed last year's return two weeks before the deadline.",
    )),
    Entity("areas/people/helen-moreau", "Helen Moreau", "manager",
           (3, 360), ("Helen",),
           "Alex's mother; lives forty minutes away and helps with the kids.",
           (
        "r360|Helen Moreau is Alex's mother.",
        "r300|Helen is the second emergency contact after Jordan.",
        "c200|Helen picks the kids up from school on Thursdays.",
        "p150|Helen prefers phone calls to texts.",
        "s10|Helen took the old spare-room furniture.",
        "s3|Helen will stay with the family during the roof replacement.",
        "c330|Helen lives forty minutes away, in Millbrook.",
    )),
    Entity("areas/people/sofia-nguyen", "Sofia Nguyen (project manager)",
           "contractors projects", (2, 8), ("Sofia",),
           "Project manager at Northside Renovations, running the bathroom remodel.",
           (
        "r8|Sofia Nguyen is Northside Renovations' project manager for the bathroom remodel.",
        "p7|Sofia sends a progress report every Friday.",
        "c6|Sofia needs the tile and fixture choices final 10 days before demolition.",
        "m2|Sofia moved the demolition to {+24} because the tile delivery slipped.",
        "p5|Sofia wants decisions in writing, by email.",
        "c6|Sofia Nguyen has run Northside Renovations jobs for eight years.",
    )),
    # companies -----------------------------------------------------------------------------
    Entity("areas/companies/bell-and-sons-plumbing", "Bell & Sons Plumbing",
           "contractors finance", (12, 330), ("Bell & Sons",),
           "Marcus Bell's plumbing business, with a 24/7 emergency line.",
           (
        "r330|Bell & Sons Plumbing is Marcus Bell's company.",
        "c300|Bell & Sons Plumbing has a 24/7 emergency line; after hours costs $150 extra.",
        "c200|Bell & Sons Plumbing guarantees its labor for one year.",
        "s12|Bell & Sons Plumbing invoiced $240 for the leak repair, paid by card.",
        "p100|Bell & Sons Plumbing sends invoices as PDFs by email.",
        "c250|Bell & Sons Plumbing is a family business: Marcus and his son Devon.",
    )),
    Entity("areas/companies/northside-renovations", "Northside Renovations", "contractors",
           (6, 30), ("Northside",),
           "The general contractor for the bathroom remodel.",
           (
        "r8|Northside Renovations quoted $14,500 for the bathroom remodel.",
        "c8|Northside Renovations is licensed and bonded; its references check out.",
        "m6|The bathroom remodel contract with Northside Renovations is signed.",
        "s6|The $4,350 deposit was paid to Northside Renovations.",
        "c30|Northside Renovations remodeled Greg Lindqvist's kitchen last year.",
        "p7|Northside Renovations works 07:30-16:00 on weekdays only.",
    )),
    Entity("areas/companies/summit-roofing", "Summit Roofing", "contractors",
           (3, 10), ("Summit Roofing",),
           "The roofer replacing the roof after the storm.",
           (
        "r10|Summit Roofing inspected the roof after the storm.",
        "c10|Summit Roofing gives a 25-year workmanship warranty.",
        "c6|The Summit Roofing quote includes tear-off, ice and water shield and a drip edge.",
        "m3|Summit Roofing received the $2,000 deposit.",
        "p3|Summit Roofing wants the driveway clear by 07:00 on the first day.",
        "c9|Summit Roofing was recommended by Dana Whitaker.",
        "c10|Summit Roofing has been in business for 31 years.",
    )),
    Entity("areas/companies/harbor-mutual", "Harbor Mutual", "finance",
           (4, 320), ("Harbor Mutual",),
           "The insurer of the house and both cars.",
           (
        "r320|Harbor Mutual insures the house and both cars.",
        "c300|The Harbor Mutual claims line is open 24/7.",
        "c9|Harbor Mutual assigned an adjuster within 48 hours of the claim.",
        "s4|Harbor Mutual approved the roof storm damage claim.",
        "c80|Harbor Mutual gives a 12% multi-policy discount.",
        "c200|Harbor Mutual sends the renewal documents 45 days before March 1.",
    )),
    Entity("areas/companies/guardline-security", "Guardline Security", "security",
           (3, 290), ("Guardline",),
           "The company monitoring the alarm system.",
           (
        "r290|Guardline Security monitors the alarm for $34.99 a month.",
        "c290|On an alarm Guardline calls Alex first, then Jordan, then Greg.",
        "c200|The Guardline contract has a 36-month term.",
        "p150|Alex wants Guardline to call, not text, for alarm events at night.",
        "s3|Guardline pushed a firmware update to the back porch camera.",
    )),
    Entity("areas/companies/brightpath-solar", "BrightPath Solar", "projects",
           (4, 40), ("BrightPath",),
           "Solar installer that surveyed the house and sent a proposal.",
           (
        "r40|BrightPath Solar did the site survey for the solar evaluation.",
        "s4|BrightPath Solar sent a proposal for a 7.2 kW system.",
        "c4|BrightPath Solar's panels carry a 25-year product warranty.",
        "p4|BrightPath Solar's rep followed up weekly; Alex asked for monthly instead.",
        "c40|BrightPath Solar has installed about 30 systems in the neighborhood.",
    )),
    Entity("areas/companies/greenleaf-landscaping", "Greenleaf Landscaping",
           "projects manager", (30, 150), ("Greenleaf",),
           "Lawn care and the raised vegetable beds.",
           (
        "r150|Greenleaf Landscaping built the raised beds.",
        "c140|Greenleaf Landscaping mows every other week from April to October.",
        "s30|Greenleaf Landscaping did a full cleanup and aerated the lawn.",
        "p100|Greenleaf must not use leaf blowers before 09:00 on weekends.",
    )),
    Entity("areas/companies/riverside-utilities", "Riverside Utilities", "finance",
           (60, 350), ("Riverside Utilities",),
           "Supplier of electricity and water.",
           (
        "r350|Riverside Utilities supplies the electricity and the water.",
        "c350|The Riverside Utilities account is in Alex's name.",
        "c100|Riverside Utilities offers a free home energy audit.",
        "s60|Riverside Utilities replaced the electric meter with a smart meter.",
        "s200|Riverside Utilities outage alerts go to both Alex's and Jordan's phones.",
    )),
    Entity("areas/companies/first-county-bank", "First County Bank", "finance",
           (200, 340), ("First County",),
           "The bank holding the mortgage, the checking account and the emergency fund.",
           (
        "r340|The mortgage is with First County Bank.",
        ("s340|The mortgage rate is 4.25% fixed for 30 years.",
         "s210|The mortgage was refinanced at 3.6% fixed for 25 years."),
        "c300|The mortgage payment includes the property tax escrow.",
        "c290|The emergency fund savings account is at First County Bank.",
        "p200|Alex wants paper statements turned off for every account.",
        "c250|The joint checking account is at First County Bank.",
    )),
    Entity("areas/companies/fiberlink", "FiberLink", "finance",
           (20, 300), ("FiberLink",),
           "The internet provider: 1 Gbps fiber.",
           (
        "r300|FiberLink provides the home internet, 1 Gbps fiber.",
        "c300|The FiberLink router is in the upstairs hallway closet.",
        ("s300|The FiberLink plan costs $79.99 a month.",
         "s120|The FiberLink plan went up to $84.99 a month.",
         "s20|After Alex called, FiberLink kept the plan at $79.99 for 12 more months."),
        "p100|Alex wants the guest Wi-Fi on its own network.",
    )),
    # resources -----------------------------------------------------------------------------
    Entity("resources/appliance-manuals", "Appliance manuals", "maintenance",
           (20, 300), ("manual", "manuals"),
           "Where the manuals are, and the make and age of every major appliance.",
           (
        "c300|Appliance manuals are PDFs in the shared drive folder House/Manuals.",
        "c300|The dishwasher is a Bosch 500 Series, bought in 2020.",
        "c300|The fridge is a Samsung French-door model, bought in 2018.",
        "c250|The washer and dryer are LG front-loaders, bought in 2021.",
        "c150|The furnace manual says to change the filter every 60 to 90 days.",
        "p200|Alex wants the model and serial number of every appliance recorded.",
        "c120|The range hood manual calls for cleaning the grease filter every month.",
    )),
    Entity("resources/warranties", "Warranties", "maintenance finance",
           (4, 280), ("warranty", "warranties"),
           "What is still under warranty, and until when.",
           (
        "c280|The dishwasher's extended warranty runs out on {+60}.",
        "c200|The water heater warranty expired last year.",
        "c10|The new roof will carry Summit Roofing's 25-year workmanship warranty.",
        "c4|BrightPath Solar's panels would carry a 25-year product warranty.",
        "c12|Bell & Sons Plumbing guarantees the leak repair labor for one year.",
        "p150|Warranty cards and receipts are photographed and filed on the day of purchase.",
        "c120|The LG washer and dryer have two years left on the parts warranty.",
    )),
    Entity("resources/emergency-contacts", "Emergency contacts", "manager security",
           (12, 350), ("emergency contact", "emergency contacts"),
           "Who to call, in what order, for what.",
           (
        "c350|Emergency contacts, in order: Jordan, Helen, Greg.",
        "c300|The poison control and pediatrician numbers are on the fridge.",
        "c12|The Bell & Sons Plumbing 24/7 line is the plumbing emergency number.",
        "c290|The Guardline Security monitoring center is the alarm contact.",
        "p200|The printed contact sheet on the fridge is updated whenever this list changes.",
        "c3|The Summit Roofing crew lead goes on the list for the roof week.",
    )),
    Entity("resources/home-inventory", "Home inventory", "security finance",
           (9, 250), ("inventory",),
           "The room-by-room inventory kept for insurance.",
           (
        "c250|The home inventory video walkthrough was recorded room by room.",
        "p240|Alex wants the inventory refreshed every year before the policy renewal.",
        "c200|High-value items: the piano, two laptops, the camera kit and Jordan's bike.",
        "s9|Photos of the storm damage were added to the inventory for the claim.",
        "c100|The piano is appraised at $6,500.",
        "p9|Alex wants the receipt of anything over $300 linked in the inventory.",
    )),
    Entity("resources/paint-and-finishes", "Paint and finishes", "projects",
           (1, 300), ("paint",),
           "Paint colors and finishes used in the house, for touch-ups.",
           (
        "c300|Living room walls: Benjamin Moore Pale Oak, eggshell.",
        "c300|Trim throughout the house: Chantilly Lace, semi-gloss.",
        "c200|Maya's room is Palladian Blue; Theo's has one Hale Navy wall.",
        "s1|Home office paint: a soft sage green, eggshell.",
        "c150|Leftover paint cans are labeled and stored on the basement shelf.",
        "c12|The kitchen ceiling is flat white; a can is kept for the touch-up after the leak.",
    )),
    # archives ------------------------------------------------------------------------------
    Entity("archives/fence-repair", "Fence repair (done)", "maintenance",
           (400, 430), ("fence repair", "fence posts"),
           "Three rotten posts of the back fence, replaced the year before last.",
           (
        "m420|Three rotten fence posts on the back fence were replaced.",
        "c430|Greg paid half of the fence repair on the shared side.",
        "c425|The fence repair cost $1,150 in total.",
        "p428|Alex wants pressure-treated posts set in gravel, not concrete.",
    )),
    Entity("archives/car-loan", "Car loan (paid off)", "finance",
           (60, 700), ("car loan",),
           "The 48-month loan on the Outback, now paid off.",
           (
        "r700|The Outback was financed with a 48-month loan from First County Bank.",
        "c700|The car loan rate was 3.9%.",
        "m60|The last car loan payment was made and the title was released.",
    )),
    Entity("archives/old-alarm-system", "Old alarm system", "security",
           (290, 600), ("old alarm",),
           "The wired alarm from the previous owners, replaced by the Guardline system.",
           (
        "c600|The previous alarm was a wired system left by the original owners.",
        "m295|The old alarm panel was removed when Guardline installed the new system.",
        "c590|Monitoring of the old alarm cost $49 a month.",
        "c595|The old alarm had no cameras and no phone app.",
    )),
    Entity("archives/attic-insulation", "Attic insulation (done)", "maintenance",
           (490, 510), ("attic insulation",),
           "Topping up the attic insulation, with a utility rebate.",
           (
        "m500|The attic insulation was topped up to R-49 with blown cellulose.",
        "c505|The attic insulation job cost $2,300 before a $500 rebate.",
        "s490|Riverside Utilities paid the $500 rebate for the attic insulation.",
        "c500|The attic hatch was weather-stripped during the insulation job.",
    )),
    # the agents' own workspaces ------------------------------------------------------------
    Entity("agent:finance:projects/budget-review", "Monthly budget review", "finance",
           (2, 300), (),
           "Working notes for the monthly review with Alex and Jordan.",
           (
        "p300|Send the review as a one-page table the evening before, by 19:00.",
        "c11|Dining out is $140 over; home repairs are at 78% of the yearly allocation.",
        "s7|Review done: bathroom capped at $15,000, solar paused, $500 buffer kept.",
        "c6|The roof deposit ($2,000) and the bathroom deposit ($4,350) land this month.",
        "p90|Round to whole dollars in summaries for Alex; cents only in the ledger.",
        "c2|Book the Harbor Mutual check as income to home repairs when it arrives.",
    )),
    Entity("agent:finance:resources/bill-calendar", "Bill calendar", "finance",
           (10, 300), (),
           "When each recurring bill is due and how it is paid.",
           (
        "c300|Mortgage: the 1st of the month, First County Bank.",
        "c300|Riverside Utilities: around the 5th, autopay.",
        "c300|Guardline Security: the 15th, by card.",
        "c300|FiberLink: the 20th, autopay.",
        "p200|Remind Alex three days before any bill that is not on autopay.",
        "c10|Rosa Mendes: every other Thursday, by bank transfer.",
    )),
    Entity("agent:maintenance:areas/maintenance-schedule", "Maintenance schedule",
           "maintenance", (5, 300), (),
           "The seasonal checklist and the log of routine tasks.",
           (
        "p300|Run the seasonal checklist in the first week of each season.",
        "c300|Gutters: clean in late spring and late fall.",
        "c300|Furnace: professional service each October; filter every 60 days.",
        "c250|Water heater: flush once a year, in spring.",
        "s5|Next due: water heater flush and dryer vent cleaning.",
    )),
    Entity("agent:security:areas/access-log", "Access log", "security",
           (3, 300), (),
           "Who has which access to the house. Never the codes themselves.",
           (
        "p300|Record who has which access, never the codes themselves.",
        "c9|People with alarm codes: Alex, Jordan, Rosa and Greg.",
        "c9|After the rotation the old codes were disabled at the panel.",
        "c3|The roofing crew gets a temporary side-gate code for the roof week only.",
        "s60|Front door lock batteries replaced; next change in about 12 months.",
        "p150|Temporary codes expire automatically when the job ends.",
    )),
    Entity("agent:contractors:areas/vendor-scorecards", "Vendor scorecards", "contractors",
           (2, 300), (),
           "How each contractor performed, for the next time.",
           (
        "p300|Get at least two quotes for any job over $1,000.",
        "c12|Marcus Bell: on time, tidy, fair price. Score 5/5.",
        "c8|Northside Renovations: clear itemized quote, good references. Score 4/5.",
        "c8|Oakline Builders: quote 16% higher, slow to reply. Score 3/5.",
        "c10|Summit Roofing: thorough inspection with photos. Score 5/5.",
        "c2|Elena Ruiz: quote within a day of the visit. Score 5/5.",
        "p200|Check the license and insurance certificate before signing anything.",
    )),
    Entity("agent:projects:projects/timeline", "Project timeline", "projects",
           (1, 100), (),
           "One timeline for every house project, with dependencies.",
           (
        "c7|Order of work: roof, then bathroom, then home office, then the solar decision.",
        "m3|Roof replacement: the week of {+17}.",
        "m2|Bathroom demolition: {+24}.",
        "m2|Home office circuits after the bathroom rough-in: Elena and Marcus never overlap.",
        "p100|Only one project with noisy work at a time.",
        "s1|Everything is on track except the bathroom tile delivery (three days late).",
    )),
    Entity("agent:janitor:areas/vault-health", "Vault health", "janitor",
           (1, 300), (),
           "The state of this vault: validity, lineage, stale documents.",
           (
        "p300|Never delete a fact: supersede it and keep the lineage.",
        "c30|Summaries are re-synthesized every Sunday at 00:00.",
        "s6|Flagged the maintenance CONTEXT.md as stale (40 days without a change).",
        "s1|All fact files are valid and every relatedEntities link resolves.",
    )),
    Entity("agent:manager:areas/weekly-priorities", "Weekly priorities", "manager",
           (1, 300), (),
           "What matters this week, for the morning briefs.",
           (
        "p300|Alex wants a short brief at 07:00 on weekdays, three bullets at most.",
        "c1|This week: roof start date, bathroom tile choices, the insurance check.",
        "c8|Last week: storm follow-up, the plumber visit, roof and bathroom quotes.",
        "p200|Escalate anything over $500 to Alex and Jordan together.",
        "s2|Theo's Saturday game and Maya's recital are on the family calendar.",
        "c1|Waiting on Jordan: the final tile choice for the bathroom.",
    )),
)

SERIES: tuple[Series, ...] = (
    Series("areas/utilities", "status", 30, 9, 4, "bank-statement",
           ("Riverside Utilities electricity bill of ${amount} for the period ending {date}.",),
           (88.0, 164.0, 0.01)),
    Series("areas/utilities", "status", 30, 9, 9, "bank-statement",
           ("Riverside Utilities water bill of ${amount} for the period ending {date}.",),
           (48.0, 76.0, 0.01)),
    Series("areas/utilities", "status", 30, 9, 14, "bank-statement",
           ("Lakeshore Gas bill of ${amount} for the period ending {date}, paid by autopay.",),
           (35.0, 190.0, 0.01)),
    Series("areas/household-budget", "status", 30, 9, 2, "bank-statement",
           ("Spending for the month ending {date}: ${amount} against the household budget.",),
           (6100.0, 7000.0, 10.0)),
    Series("projects/emergency-fund", "milestone", 30, 9, 1, "bank-statement",
           ("Transferred ${amount} to the emergency fund on {date}.",),
           (450.0, 950.0, 50.0)),
    Series("areas/people/rosa-mendes", "status", 14, 10, 3, "bank-statement",
           ("Rosa cleaned the house on {date}; paid ${amount} by bank transfer.",
            "Rosa cleaned the house on {date}, fridge included; paid ${amount} by transfer."),
           (140.0, 165.0, 5.0)),
    Series("areas/home-security", "status", 30, 9, 6, "system-check",
           ("Monthly alarm test with Guardline on {date}: all 18 sensors reported OK.",
            "Monthly alarm test on {date}: all sensors OK, panel battery at {amount}%."),
           (88.0, 100.0, 1.0)),
    Series("areas/companies/guardline-security", "status", 30, 6, 8, "email-receipt",
           ("Guardline charged the $34.99 monitoring fee for the month ending {date}.",)),
    Series("agent:maintenance:areas/maintenance-schedule", "milestone", 60, 6, 5, "task-log",
           ("Replaced the furnace filter (16x25x1, MERV 11) on {date}.",)),
    Series("agent:maintenance:areas/maintenance-schedule", "milestone", 30, 8, 12, "task-log",
           ("Tested all smoke and CO detectors on {date}: all working.",
            "Tested the smoke and CO detectors on {date}; new battery in the hallway unit.")),
    Series("agent:janitor:areas/vault-health", "status", 7, 12, 1, "system-check",
           ("Weekly vault check on {date}: all fact files valid, no dangling links.",
            "Weekly vault check on {date}: {amount} summaries refreshed, no errors.",
            "Weekly vault check on {date}: no stale locks, backups within the ring size."),
           (2.0, 9.0, 1.0)),
    Series("agent:finance:projects/budget-review", "context", 7, 8, 2, "bank-statement",
           ("Groceries for the week ending {date}: ${amount}.",),
           (180.0, 290.0, 0.01)),
    Series("areas/companies/greenleaf-landscaping", "milestone", 14, 8, 44, "email-receipt",
           ("Greenleaf mowed and edged the lawn on {date} ($45).",
            "Greenleaf mowed the lawn on {date} and trimmed the hedge ($70).")),
)

# -- daily notes ----------------------------------------------------------------------------

# (days ago, "HH:MM", "global" or an agent id, text)
DAILY: tuple[tuple[int, str, str, str], ...] = (
    (13, "07:42", "global",
     "Big storm overnight, gusts near 60 mph. Shingles all over the backyard and a brown "
     "water stain on the kitchen ceiling, right under the upstairs bathroom. Biscuit spent "
     "the night in the basement."),
    (13, "07:58", "maintenance",
     "Checked the kitchen ceiling stain: damp, centered under the bathroom vanity and far "
     "from any exterior wall, so a plumbing leak rather than the roof. Closed the vanity "
     "supply valves; bucket and towels under the spot.\n\nAttic checked too: insulation dry."),
    (13, "08:10", "manager",
     "Storm follow-up for Alex:\n\n- plumber for the leak (maintenance calls Marcus Bell)\n"
     "- roof check\n- dated photos of everything for the insurance"),
    (13, "12:30", "global",
     "The basement stayed dry despite the rain: the downspout extensions do their job."),
    (13, "21:05", "security",
     "Power dropped twice during the storm; the alarm panel ran on battery for 4 minutes "
     "and recovered. No sensor faults."),
    (12, "02:20", "security",
     "Motion alert on the back porch camera at 02:14: a raccoon at the trash bins. No "
     "dispatch."),
    (12, "07:30", "maintenance",
     "Called Marcus Bell (plumber) about the leak at 07:15. He can come today at 15:00."),
    (12, "15:50", "global",
     "Marcus the plumber found the leak: a corroded compression fitting on the cold supply "
     "line under the upstairs vanity. Replaced it, $240 with the call-out. He recommends "
     "replacing all the old supply lines when we remodel the bathroom."),
    (12, "16:05", "finance",
     "Paid Bell & Sons Plumbing $240 by card for the leak repair; booked under home repairs."),
    (11, "09:15", "finance",
     "Budget review prep: dining out $140 over budget, home repairs at 78% of the yearly "
     "allocation after the plumber. Groceries on target."),
    (11, "17:40", "global",
     "Greg from next door says several shingles are missing on the north slope of the roof; "
     "he could see it from his yard. Asked for a roof inspection."),
    (11, "17:55", "contractors",
     "Requested a roof inspection from Summit Roofing for tomorrow morning, and two "
     "references from jobs in the neighborhood."),
    (10, "10:30", "contractors",
     "Summit Roofing inspection: 14 shingles gone on the north slope, the chimney flashing "
     "lifted, underlayment fine elsewhere. The roof is about 22 years old; they recommend a "
     "full replacement within two years. Quote to follow."),
    (10, "13:00", "global",
     "Called Dana Whitaker at Harbor Mutual. Storm damage to the roof is probably covered, "
     "minus the $1,000 deductible. She wants dated photos by email with the claim number in "
     "the subject."),
    (10, "13:20", "finance",
     "Insurance: the deductible is $1,000 since the last renewal. Any payout goes to the home "
     "repairs category."),
    (10, "20:10", "projects",
     "Drafted an order of work: roof, then bathroom, then home office, then the solar "
     "decision. Nothing noisy in parallel."),
    (9, "09:00", "global",
     "Insurance claim for the storm damage opened with Harbor Mutual: HM-2417-88. Photos of "
     "the roof and of the shingles in the yard sent to Dana."),
    (9, "11:30", "security",
     "Quarterly alarm code rotation done; old codes disabled at the panel. New codes given "
     "to Jordan and Rosa in person, not written anywhere."),
    (9, "16:00", "maintenance",
     "Added the storm damage photos to the home inventory folder for the insurance claim."),
    (8, "10:00", "contractors",
     "Bathroom remodel quotes are in: Northside Renovations $14,500 (itemized, tile "
     "allowance included), Oakline Builders $16,900 (not itemized). Northside's references "
     "check out; they did Greg's kitchen."),
    (8, "14:20", "global",
     "Met Sofia Nguyen from Northside Renovations at the house. She walked the bathroom, "
     "measured, and confirmed the quote. She will be the project manager."),
    (8, "19:30", "finance",
     "Both bathroom quotes are above the $12,000 budget. Bringing it to the budget review."),
    (7, "09:30", "global",
     "Budget review with Jordan. Decisions:\n\n- cap the bathroom remodel at $15,000 (the "
     "porcelain tile stays)\n- postpone the solar decision until the roof is done\n- keep "
     "the $500 buffer\n- dining out: two takeout nights a week at most"),
    (7, "10:15", "finance",
     "Budget review notes filed. Home repairs will need the insurance payout to stay within "
     "the yearly allocation."),
    (7, "11:00", "projects",
     "Bathroom timeline draft: contract next week, demolition in about three weeks, then "
     "four to five weeks of work."),
    (7, "15:00", "manager",
     "Weekly priorities updated: roof quote, bathroom contract, insurance adjuster."),
    (6, "08:45", "contractors",
     "Summit Roofing quote: $18,400 for a full replacement (tear-off, ice and water shield, "
     "architectural shingles, new drip edge, ridge vent upgrade). Spot repair only: $1,250."),
    (6, "12:00", "global",
     "Signed the bathroom remodel contract with Northside Renovations and paid the 30% "
     "deposit of $4,350."),
    (6, "18:00", "finance",
     "Two deposits this month (bathroom $4,350, roof deposit to come). Checking can carry "
     "both; no need to touch the emergency fund."),
    (5, "07:10", "manager",
     "Brief: insurance adjuster visit tomorrow at 10:00; Maya's piano recital is coming up; "
     "Theo's game Saturday at 09:00."),
    (5, "10:00", "maintenance",
     "Replaced the furnace filter (16x25x1, MERV 11). Tested the sump pump: it starts at the "
     "float mark and the battery backup holds a charge."),
    (5, "19:00", "global",
     "Theo scored his first goal at soccer practice. Maya played her recital piece three "
     "times without stopping."),
    (4, "10:50", "global",
     "The Harbor Mutual adjuster came and approved $3,100 for the storm damage to the roof. "
     "Payment is $2,100 after the deductible, by check within two weeks."),
    (4, "11:10", "finance",
     "Insurance claim HM-2417-88 approved: $3,100 less the $1,000 deductible. The check will "
     "be booked against home repairs."),
    (4, "15:30", "projects",
     "BrightPath Solar proposal: 7.2 kW, $21,600 before the 30% tax credit, payback about 9 "
     "years. Parked until the roof is done, as decided at the budget review."),
    (3, "09:20", "global",
     "Decided: full roof replacement with Summit Roofing rather than the spot repair. "
     "Revised quote $17,650 without the ridge vent upgrade; paid the $2,000 deposit. Helen "
     "will stay with us that week to help with the kids."),
    (3, "09:40", "contractors",
     "Summit Roofing booked for the week of {+17}. The driveway must be clear by 07:00 on "
     "the first day; Greg offered his side of the driveway for our cars."),
    (3, "14:05", "security",
     "Back porch camera offline since 03:10. Rebooted it; Guardline pushed a firmware update "
     "and the stream was back at 14:00. Preparing a temporary side-gate code for the "
     "roofers."),
    (3, "16:00", "projects",
     "Timeline updated: roof the week of {+17}, bathroom demolition after it."),
    (2, "11:00", "global",
     "Elena Ruiz came to look at the spare room. Quote: $680 for two new 20 A circuits for "
     "the home office. She is booked about three weeks out."),
    (2, "11:30", "contractors",
     "Elena's quote arrived within a day of the visit: score 5/5. It is under the $1,000 "
     "threshold, so no second quote is needed."),
    (2, "16:40", "projects",
     "Sofia Nguyen: the tile delivery slipped three days, so demolition moves to {+24}. The "
     "home office circuits come after the bathroom rough-in."),
    (2, "18:20", "finance",
     "The emergency fund is at about two thirds of the six-month target. Next transfer on "
     "the 1st, as usual."),
    (1, "08:05", "global",
     "Marcus called back: the leak spot has stayed dry, and he confirmed the rough-in "
     "plumbing dates with Sofia."),
    (1, "10:00", "maintenance",
     "The kitchen ceiling stain is dry. Prime and paint it after the bathroom work, not "
     "before."),
    (1, "19:30", "global",
     "Picked the paint for the home office: a soft sage green, eggshell. Maya wants the "
     "same color for her room; told her maybe next year."),
    (1, "21:00", "manager",
     "Drafted tomorrow's brief: roof date, tile choices due, insurance check."),
    (0, "07:00", "manager",
     "Morning brief:\n\n- the roof starts the week of {+17}; driveway plan agreed with "
     "Greg\n- bathroom tile choices are due to Sofia by {+14}\n- the insurance check from "
     "Harbor Mutual is expected this week"),
    (0, "07:20", "global",
     "Reminder: Rosa cleans on Thursday; Biscuit stays in the yard while she mops."),
)

# Routine entries, one per agent every day of the fortnight: (agent, hour, texts to pick from).
ROUTINE: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("janitor", 2, (
        "Nightly check: all fact files valid, every relatedEntities link resolves.",
        "Nightly check: all fact files valid; one summary is out of date, queued for Sunday.",
        "Nightly check: no locks left behind, backups within the ring size.",
        "Nightly check: daily notes indexed, no malformed entry headings.",
    )),
    ("security", 6, (
        "Overnight: alarm armed in night mode, no events.",
        "Overnight: alarm armed in night mode; a perimeter door opened at 05:50 (Jordan home "
        "from a shift).",
        "Overnight: quiet. All three cameras online.",
        "Overnight: alarm armed; a cat on the driveway camera at 01:30, ignored.",
    )),
)
# fmt: on

# -- agent documents ------------------------------------------------------------------------

PRINCIPLES = """\
# Principles

The single, highest-priority source of rules for every agent of the Moreau household vault.
When a rule here and an agent's own notes disagree, this file wins.

## The household

Alex and Jordan Moreau, their children Maya (11) and Theo (7), and Biscuit the dog, in a 1968
colonial. Jordan works night shifts as an ICU nurse; Alex works from home three days a week.

## Rules for every agent

1. **Safety first, then money, then convenience.** A leak, an alarm or a child comes before
   anything else, at any hour.
2. **Never delete a fact.** When something changes, supersede the old fact so the lineage stays
   browsable.
3. **Never store secrets.** Alarm codes, passwords and account numbers stay out of the vault:
   record who has access, never the access itself.
4. **Spending over $500** is decided by Alex and Jordan together; the manager brings it to both.
5. **Shared facts go to `global/life/`**; working notes go to your own workspace.
6. **One fact, one statement**, with its source and related entities. Say how sure you are
   (`confidence`) when the fact is inferred rather than stated.
7. **Quiet hours are 21:00-07:00**, and Jordan's sleep mornings after a night shift: no calls,
   no notifications, except for emergencies.
8. **Check the vault before asking.** Alex does not like answering the same question twice.

## Who does what

- **manager**: the morning brief, priorities, anything that needs both Alex and Jordan.
- **finance**: budget, bills, insurance money, taxes, the emergency fund.
- **maintenance**: the house's systems, the seasonal schedule, small repairs.
- **security**: the alarm, cameras, locks and who has access.
- **contractors**: quotes, references, scheduling and scoring of every contractor.
- **projects**: the timeline of renovation projects and their dependencies.
- **janitor**: the health of this vault itself.
"""

TACIT: dict[str, str] = {
    "manager": """\
# Tacit knowledge — manager

How Alex runs the household, as seen from the coordinator's seat.

## Communication

- Alex reads a short brief at 07:00 on weekdays: three bullets at most, decisions first,
  FYIs last. Anything longer goes in a linked note.
- Alex answers texts fastest at lunch (12:00-13:00). Calls are for emergencies only.
- Jordan prefers texts too, and nothing before 14:00 after a night shift.

## Decisions

- Anything over $500, or anything permanent in the house, is decided by Alex and Jordan
  together. Bring two options and a recommendation, never an open question.
- Alex decides fast when the trade-off fits on one line ("$1,250 now, or $17,650 once").

## Working style

- Alex batches: one "house hour" on Sunday evening clears the pending decisions. Queue
  anything non-urgent for it.
- Alex hates being asked the same thing twice; look in the vault first.
""",
    "finance": """\
# Tacit knowledge — finance

## How Alex thinks about money

- Alex thinks in monthly budget categories; Jordan thinks in the checking balance. Every
  summary shows both.
- Whole dollars in summaries, cents only in the ledger.
- The emergency fund is for emergencies. A planned deposit, even a big one, is not one.

## The monthly review

- One page: a table of categories (budget, actual, variance), biggest variances first, then
  at most three suggested actions.
- Send it by 19:00 the evening before the review on the first weekend of the month.
- Never raise money with Jordan right after a night shift.

## Payments

- Autopay for everything recurring; the card for one-off contractor invoices (for the points);
  bank transfer for Rosa, on the day.
- Alex checks every contractor invoice against the quote before paying. Flag any difference.
""",
    "maintenance": """\
# Tacit knowledge — maintenance

- Alex wants to understand the cause before paying for a fix: send a photo and a one-line
  diagnosis ("corroded fitting, not the roof") with any request.
- Small jobs (filters, batteries, caulk, detector tests) Alex does on Saturday mornings, with
  Theo helping. Prepare the list and the parts on Friday.
- Bigger jobs are batched into one handyman day per quarter.
- A week's notice before any contractor visit, and a reminder the evening before.
- When something breaks, Alex's first question is "is it under warranty?": look in
  resources/warranties before anything else.
- Keep the side gate closed. Biscuit gets out.
""",
    "security": """\
# Tacit knowledge — security

- Codes and passwords are never written down: shared by voice or in person, and the vault
  records who has access, never the code.
- At night Alex wants perimeter alerts only. Interior motion is Biscuit. A real alarm is a
  phone call, not a text.
- Codes rotate every quarter, and at once whenever the set of people with access changes.
- Contractors get a temporary, time-limited side-gate code that expires with the job.
- Alex looks at camera clips only when asked. Summarize events one line each; "quiet night"
  is a fine report.
""",
    "contractors": """\
# Tacit knowledge — contractors

- Two quotes for any job over $1,000, side by side, itemized, for the same scope. Alex reads
  the scope before the price.
- Alex values a clear, itemized quote and quick replies over the lowest price, but will not pay
  more than about 10% for them.
- Check the license, the insurance certificate and two local references before recommending
  anyone. Greg knows most of the trades in the street: ask him.
- Visits on Alex's work-from-home days (Monday, Wednesday, Friday), never after 19:45 when Theo
  goes to bed.
- Greg gets a heads-up before any dumpster or loud work.
""",
    "projects": """\
# Tacit knowledge — projects

- One noisy project at a time. Alex's order: roof, bathroom, home office, then the solar
  decision.
- Keep a single timeline with dates and dependencies. When a date moves, say why in one line.
- Finishes (tile, paint, fixtures) are chosen with Jordan on weekends: prepare two or three
  options with photos and prices; Jordan has the final say on colors.
- Plan 20% slack on any renovation; Alex would rather finish early than apologize.
""",
    "janitor": """\
# Tacit knowledge — janitor

- Alex wants the vault boring: valid files, no duplicates, no secrets, no surprises.
- Report problems only. A clean nightly check is one line.
- Never delete: supersede and keep the lineage. When unsure, flag it to the manager rather than
  fix it.
- Alex reads the weekly health summary on Sunday evening, with the other pending items.
""",
}

CONTEXT: dict[str, str] = {
    "manager": """\
# Current context — manager

_Snapshot of {+0}._

- **Roof**: full replacement with Summit Roofing, the week of {+17}. Driveway plan agreed with
  Greg; Helen stays that week.
- **Bathroom remodel**: contract signed with Northside Renovations; tile choices due to Sofia
  by {+14}; demolition on {+24}.
- **Insurance**: claim HM-2417-88 approved ($3,100 less the $1,000 deductible); the check is
  expected this week.
- **Family**: Maya's piano recital on {+4} at 18:00; Theo's game on Saturday morning.
""",
    "finance": """\
# Current context — finance

_Snapshot of {+0}._

- Deposits this month: bathroom $4,350 (paid), roof $2,000 (paid). Checking covers both.
- Expected: the Harbor Mutual check of $2,100, to book against home repairs.
- Home repairs are at 78% of the $9,000 yearly allocation before the check.
- Emergency fund about $27,300 of the $40,800 target; next transfer on the 1st.
""",
    "maintenance": """\
# Current context — maintenance

_Snapshot of {+0}._

- Leak under the upstairs vanity fixed by Marcus Bell; the kitchen ceiling stain is dry.
  Repaint after the bathroom work.
- Furnace filter changed {-5}; sump pump and battery backup tested the same day.
- Next due: water heater flush, dryer vent cleaning. The water heater is 12 years old: start
  budgeting a replacement.
""",
    "security": """\
# Current context — security

_Snapshot of {+0}._

- Alarm codes rotated on {-9}; Alex, Jordan, Rosa and Greg have access.
- Back porch camera back online after the firmware update of {-3}.
- To do before {+17}: a temporary side-gate code for the Summit Roofing crew, expiring at the
  end of the roof week.
""",
    "contractors": """\
# Current context — contractors

_Snapshot of {+0}._

- Summit Roofing: signed, deposit paid, the week of {+17}.
- Northside Renovations: signed, deposit paid; Sofia Nguyen is the contact; demolition {+24}.
- Elena Ruiz: $680 for the home office circuits; to book after the bathroom rough-in.
- Open: nothing waiting for a quote.
""",
    "projects": """\
# Current context — projects

_Snapshot of {+0}._

1. Roof replacement: the week of {+17}.
2. Bathroom remodel: tile choices due {+14}, demolition {+24}, about five weeks of work.
3. Home office: paint chosen; circuits after the bathroom rough-in.
4. Solar: on hold until the roof is done.
""",
    "janitor": """\
# Current context — janitor

_Snapshot of {+0}._

- Last weekly check {-1}: all fact files valid, no dangling links.
- Watching: the maintenance CONTEXT.md, flagged as stale on {-6}, has been refreshed since.
""",
}


# -- building ---------------------------------------------------------------------------------


def create_demo(
    path: Path | str,
    *,
    today: dt.date | None = None,
    clock: decay.Clock | None = None,
) -> vault.Vault:
    """Lay out a new vault at `path` and fill it with the demo household, dated from `today`.

    `today` defaults to the clock's local date. The same `today` gives the same files, byte
    for byte (apart from the app state under `.vault/`), and every fact keeps its tier all
    day long, so summaries written now stay right until midnight.
    """
    clock = clock or decay.system_clock
    day = today or decay.as_aware(clock()).astimezone().date()
    v = vault.Vault.create(path, clock=clock, actor="demo")
    rng = random.Random(SEED)
    for agent in AGENT_IDS:
        v.create_agent(agent)
    _write_documents(v, day)
    writer = _FactWriter(v, day, rng, ENTITIES)
    records = _series_records(day, rng)
    for entity in ENTITIES:
        writer.write_entity(entity, records.get(entity.address, []))
    _write_daily_notes(v, day, rng)
    noon = dt.datetime.combine(day, dt.time(12)).astimezone()
    _, problems = v.synthesize(at=noon)
    if problems:
        raise RuntimeError(f"demo vault has problems: {problems}")
    return v


def ensure_demo_vault() -> tuple[Path, bool]:
    """The demo vault in the user's data folder (`config.demo_vault_path`), created on
    first use: what the window and the command line open when given no vault. Returns
    the path and whether it was created now."""
    target = config.demo_vault_path()
    if layout.is_vault(target):
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    create_demo(target)
    return target, True


def expand_days(text: str, today: dt.date) -> str:
    """Replace each `{+N}` / `{-N}` token with the date N days after / before `today`."""
    return _DAY_TOKEN.sub(lambda m: _day_label(today + dt.timedelta(days=int(m[1])), today), text)


def _day_label(day: dt.date, today: dt.date) -> str:
    label = f"{MONTHS[day.month - 1]} {day.day}"
    return label if day.year == today.year else f"{label}, {day.year}"


def _moment(day: dt.date, seconds: int) -> dt.datetime:
    """An aware local datetime, `seconds` after the start of `day`."""
    naive = dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)
    return naive.astimezone()


def _parse_line(line: str, default_age: int) -> _Draft:
    match = _LINE.match(line)
    if match is None:
        raise ValueError(f"bad demo fact line {line!r}")
    letter, age, text = match.groups()
    return _Draft(CATEGORIES[letter], text, int(age) if age else default_age)


def _series_records(today: dt.date, rng: random.Random) -> dict[str, list[_Draft]]:
    """The recurring records of every series, by entity address."""
    records: dict[str, list[_Draft]] = {}
    for series in SERIES:
        low, high, step = series.amount
        for n in range(series.count):
            age = series.latest + n * series.every
            value = round(rng.uniform(low, high) / step) * step
            amount = f"{value:,.2f}" if step < 1 else f"{value:,.0f}"
            day = today - dt.timedelta(days=age)
            text = rng.choice(series.texts).format(date=_day_label(day, today), amount=amount)
            origin = f"{series.origin}-{day:%Y%m%d}"
            records.setdefault(series.address, []).append(
                _Draft(series.category, text, age, origin)
            )
    return records


class _FactWriter:
    """Turns the entities' fact lines into raw canonical facts and writes them."""

    def __init__(
        self, v: vault.Vault, today: dt.date, rng: random.Random, entities: Iterable[Entity]
    ) -> None:
        self.vault = v
        self.today = today
        self.rng = rng
        self.links: list[tuple[layout.EntityRef, re.Pattern[str]]] = []
        for entity in entities:
            if entity.keys:
                words = "|".join(re.escape(k) for k in entity.keys)
                pattern = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)
                self.links.append((layout.EntityRef.parse(entity.address), pattern))

    def write_entity(self, entity: Entity, records: list[_Draft]) -> None:
        ref = layout.EntityRef.parse(entity.address)
        folder = self.vault.paths.entity_dir(ref)
        folder.mkdir(parents=True, exist_ok=True)
        entries = self._entries(entity, ref, records)
        summary = f"# {entity.title}\n\n{entity.blurb}\n"
        facts_path = folder / "items.json"
        data = formats.encode(formats.FactFile(facts_path, entries))
        for target, content in (
            (folder / layout.SUMMARY_NAME, summary.encode("utf-8")),
            (facts_path, data),
        ):
            self.vault.storage.write(target, content, expected=None, action=ACTION, entity=str(ref))

    def _entries(
        self, entity: Entity, ref: layout.EntityRef, records: list[_Draft]
    ) -> list[dict[str, Any]]:
        heat = AGENT_HEAT if ref.agent else HEAT[ref.category]
        agents = entity.agents.split()
        chains: list[list[_Draft]] = []
        for line in entity.facts:
            if isinstance(line, str):
                chains.append([_parse_line(line, self.rng.randint(*entity.span))])
                continue
            chain = [_parse_line(step, 0) for step in line]
            ages = [d.age for d in chain]
            if len(chain) < 2 or any(b >= a for a, b in itertools.pairwise(ages)) or ages[-1] < 1:
                raise ValueError(f"chain in {entity.address} needs decreasing ages: {line}")
            chains.append(chain)
        chains.extend([record] for record in records)
        entries: list[tuple[dt.datetime, dict[str, Any]]] = []
        for chain in chains:
            ids = [self._new_id() for _ in chain]
            for i, draft in enumerate(chain):
                later = chain[i + 1].age if i + 1 < len(chain) else None
                successor = ids[i + 1] if i + 1 < len(chain) else None
                agent = self._author(agents)
                created = self._time_on(draft.age)
                entry = self._entry(ref, draft, ids[i], created, later, successor, heat, agent)
                entries.append((created, entry))
        entries.sort(key=lambda pair: pair[0])
        return [entry for _, entry in entries]

    def _entry(
        self,
        ref: layout.EntityRef,
        draft: _Draft,
        fact_id: str,
        created: dt.datetime,
        later: int | None,
        successor: str | None,
        heat: float,
        agent: str,
    ) -> dict[str, Any]:
        text = expand_days(draft.text, self.today)
        if later is None:
            count = self._access_count(draft.age)
            last_age = self._last_access_age(draft.age, count, heat)
        else:  # superseded: read now and then until its successor was written
            count = self.rng.randint(0, 6)
            last_age = self.rng.randint(later, draft.age)
        if last_age == draft.age:
            last = created + dt.timedelta(minutes=self.rng.randint(0, 90))
        else:
            last = self._time_on(last_age)
        day = created.date()
        if draft.origin is not None:  # a record read from a statement, a log, a receipt
            confidence, verified, extracted = 1.0, "system", draft.origin
        else:
            confidence = 1.0 if self.rng.random() > 0.14 else self.rng.choice(CONFIDENCES)
            verified = "agent" if confidence < 1.0 else self._verifier()
            extracted = f"conversation-{day:%Y%m%d}-{self.rng.getrandbits(24):06x}"
        source = extracted if self.rng.random() < 0.2 else day.isoformat()
        return {
            "id": fact_id,
            "fact": text,
            "category": draft.category,
            "timestamp": formats.iso(created),
            "source": source,
            "status": "active" if successor is None else "superseded",
            "supersededBy": successor,
            "relatedEntities": self._related(ref, text),
            "lastAccessed": formats.iso(last),
            "accessCount": count,
            "confidence": confidence,
            "agentId": agent,
            "metadata": {"extractedFrom": extracted, "verifiedBy": verified},
        }

    def _new_id(self) -> str:
        return "fact-" + uuid.UUID(int=self.rng.getrandbits(128), version=4).hex

    def _time_on(self, age: int) -> dt.datetime:
        """A moment between 08:00 and 21:00, `age` days before today."""
        day = self.today - dt.timedelta(days=age)
        return _moment(day, self.rng.randrange(8 * 3600, 21 * 3600))

    def _author(self, agents: list[str]) -> str:
        """The entity's main writer seven times in ten, else one of the others."""
        if len(agents) == 1 or self.rng.random() < 0.7:
            return agents[0]
        return self.rng.choice(agents[1:])

    def _verifier(self) -> str:
        roll = self.rng.random()
        return "user" if roll < 0.6 else "agent" if roll < 0.9 else "system"

    def _access_count(self, age: int) -> int:
        roll = self.rng.random()
        if roll < 0.6:
            count = self.rng.randint(0, 10)
        elif roll < 0.85:
            count = self.rng.randint(11, 20)
        else:
            count = self.rng.randint(21, 48)
        return min(count, 2 + 3 * age)

    def _last_access_age(self, age: int, count: int, heat: float) -> int:
        """Days since the last access, never a tier boundary: the tier holds all day long.

        Read at any time today, a fact last accessed `d` days ago at some hour is `d - 1` or
        `d` whole days old; `d` is moved off the first day of a tier so both land in one tier.
        """
        recent = heat if age <= 14 else heat / 2 if age <= 90 else heat / 4  # old news fades
        roll = self.rng.random()
        if roll < recent:
            days = self.rng.randint(1, min(age, 7))
        elif roll < recent + 0.3 and age > 8:
            days = self.rng.randint(8, min(age, 30))
        else:
            days = self.rng.randint(min(age, 32), age)
        hot, warm = self.vault.config.decay.thresholds(count)  # the policy of this vault
        if days in (hot + 1, warm + 1):
            days = days + 1 if days < age else days - 1
        return days

    def _related(self, ref: layout.EntityRef, text: str) -> list[str]:
        """The entities a fact's text names (global ones, or the same agent's)."""
        return [
            target.path
            for target, pattern in self.links
            if target != ref and target.agent in (None, ref.agent) and pattern.search(text)
        ]


def _write_documents(v: vault.Vault, today: dt.date) -> None:
    principles = v.document(vault.PRINCIPLES)
    v.write_document(vault.PRINCIPLES, PRINCIPLES, expected=principles.digest)
    for agent in AGENT_IDS:
        for name, texts in (("TACIT.md", TACIT), ("CONTEXT.md", CONTEXT)):
            current = v.document(name, agent=agent)
            text = expand_days(texts[agent], today)
            v.write_document(name, text, agent=agent, expected=current.digest)


def _write_daily_notes(v: vault.Vault, today: dt.date, rng: random.Random) -> None:
    """Two weeks of global and per-agent daily notes, in the reference writer's format."""
    notes: dict[tuple[str, int], list[tuple[dt.time, str]]] = {}
    for age, hhmm, scope, text in DAILY:
        hour, minute = (int(part) for part in hhmm.split(":"))
        moment = dt.time(hour, minute, rng.randrange(60))
        notes.setdefault((scope, age), []).append((moment, expand_days(text, today)))
    for age in range(14):
        for agent, hour, texts in ROUTINE:
            moment = dt.time(hour, rng.randrange(60), rng.randrange(60))
            notes.setdefault((agent, age), []).append((moment, rng.choice(texts)))
    for (scope, age), entries in sorted(notes.items()):
        day = today - dt.timedelta(days=age)
        owner = None if scope == "global" else scope
        note = daily.new_note(day)
        for moment, content in sorted(entries):
            note = daily.append(note, day, moment, content)
        path = v.paths.daily_file(day, owner)
        v.storage.write(path, note.encode("utf-8"), expected=None, action=ACTION, agent=owner)
