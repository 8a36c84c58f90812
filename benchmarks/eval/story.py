"""Hand-written story material of the conversation evaluation set (`conversations.py`).

People talk in turns (first person, chatty); a careful extractor keeps a third-person fact
of each event; questions name the person and paraphrase the event (other words than the
turn and the fact). Each `Topic` is an event many people have in their own way (six
people get a pet, five a new job...), so that sessions about similar things distract
from one another, as in months of real conversation. Slots are `{name}` fields filled
per person from the topic's `options`; `{P}` is the person's first name, `{Q}` the one
they talk to. `Pair`s are two events of one person told in different sessions, with a
question only both answer together (multi-hop): in `chat`, with the small talk.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    key: str
    options: tuple[dict[str, str], ...]
    turns: tuple[str, ...]  # how the person says it (first person)
    fact: str  # what the extractor keeps
    single: tuple[str, ...]  # a question the fact answers (paraphrased)
    when: tuple[str, ...]  # "When did {P} ...?" phrases
    inferred: tuple[str, ...]  # open-domain: the fact answers it by inference
    # later mentions that do not hold the answer: (turn, the fact kept of it)
    followups: tuple[tuple[str, str], ...] = ()
    absent: tuple[str, ...] = ()  # asked of people this never happened to (no answer)


@dataclass(frozen=True)
class Pair:
    key: str
    options: tuple[dict[str, str], ...]
    first: tuple[str, str]  # (turn, fact)
    second: tuple[str, str]
    question: tuple[str, ...]


def _o(*rows: tuple[str, ...], keys: str) -> tuple[dict[str, str], ...]:
    names = keys.split()
    return tuple(dict(zip(names, row, strict=True)) for row in rows)


PEOPLE: tuple[tuple[str, ...], ...] = (  # one conversation a tuple: 2 or 3 people
    ("Maya Chen", "Leo Park"),
    ("Priya Nair", "Tom Becker", "Sofia Alvarez"),
    ("Daniel Okafor", "Hannah Weiss"),
    ("Grace Liu", "Marcus Reed"),
    ("Ines Duarte", "Kenji Mori", "Olivia Grant"),
    ("Sam Rivera", "Nora Lindqvist"),
    ("Ahmed Karim", "Julia Novak"),
    ("Ben Carter", "Chloe Dubois", "Ravi Menon"),
    ("Elena Petrova", "Felix Wagner"),
    ("Zoe Adams", "Omar Haddad"),
    ("Lucas Moreno", "Aisha Bello", "Wren Talbot"),
)

TOPICS: tuple[Topic, ...] = (
    Topic(
        "pet",
        _o(
            ("dog", "beagle puppy", "Pepper"),
            ("cat", "grey tabby kitten", "Miso"),
            ("dog", "retired racing greyhound", "Comet"),
            ("cat", "one-eyed rescue cat", "Biscotti"),
            ("dog", "border collie", "Juniper"),
            ("rabbit", "lop-eared rabbit", "Clover"),
            ("dog", "corgi", "Waffles"),
            ("cat", "Maine Coon", "Tofu"),
            keys="animal kind pet",
        ),
        (
            "We went to the shelter on Saturday and came home with a {kind}. We picked the "
            "name {pet}.",
            "Big news at home: there's a {kind} living with us now! Meet {pet}.",
        ),
        "{P} adopted a {kind} named {pet} from a shelter.",
        ("What is {P}'s {animal} called?", "What name did {P} give the new {animal}?"),
        ("take in the {animal}", "bring the {animal} home"),
        (
            "Would {P} need someone to look after an animal during a holiday?",
            "Does {P} have to rush home to feed someone?",
        ),
        (
            (
                "The little one chewed through a charging cable this morning.",
                "{P}'s new {animal} chewed through a charging cable.",
            ),
        ),
        ("What is {P}'s dog called?", "What name did {P} give the new cat?"),
    ),
    Topic(
        "job",
        _o(
            ("UX researcher", "Fernwood Labs"),
            ("data engineer", "Corvid Freight"),
            ("pediatric nurse", "St. Alder Hospital"),
            ("sous-chef", "Lantern and Thyme"),
            ("product manager", "Quillstack"),
            ("chemistry teacher", "Ridgeview Academy"),
            ("structural engineer", "Halvorsen and Price"),
            ("paralegal", "Ostrander Legal"),
            keys="role company",
        ),
        (
            "I signed the contract yesterday, I'm joining {company} as a {role}. I start "
            "in two weeks.",
            "The interviews paid off: {company} offered me the {role} position and I said yes!",
        ),
        "{P} accepted a job as a {role} at {company}.",
        ("Who is {P}'s new employer?", "What kind of work did {P} get hired for?"),
        ("land the new position", "say yes to the offer from the new employer"),
        (
            "Is {P} still settling into a different workplace?",
            "Did {P} change careers or employers this year?",
        ),
        (
            (
                "First week at the new place was a blur of passwords and onboarding videos.",
                "{P}'s first week at work was mostly onboarding.",
            ),
        ),
        ("Which company hired {P}?",),
    ),
    Topic(
        "move",
        _o(
            ("Portland", "a two-bedroom flat near the river"),
            ("Lisbon", "a small apartment in Alfama"),
            ("Denver", "a townhouse in Highland"),
            ("Edinburgh", "a flat in Leith"),
            ("Austin", "a bungalow on the east side"),
            ("Toronto", "a condo by the lake"),
            ("Melbourne", "a terrace house in Fitzroy"),
            keys="city home",
        ),
        (
            "The lease is signed! We're heading to {city} next month, {home}.",
            "Boxes everywhere. We found {home} in {city}, the van comes on the 28th.",
        ),
        "{P} is relocating to {city}, into {home}.",
        ("Which city is {P} going to live in?", "Where is {P}'s new home?"),
        ("decide to relocate", "sign the lease on the new place"),
        (
            "Will {P} need help packing boxes soon?",
            "Is {P} going to be far from the old neighbourhood?",
        ),
        (
            (
                "Found a box of old letters while packing the closet.",
                "{P} found a box of old letters while packing for the move.",
            ),
        ),
        ("Which city is {P} moving to?",),
    ),
    Topic(
        "race",
        _o(
            ("the Chicago marathon", "4 hours 12 minutes"),
            ("a hilly half marathon", "1 hour 58 minutes"),
            ("the city 10k", "49 minutes"),
            ("an Olympic-distance triathlon", "2 hours 41 minutes"),
            ("a 50 km trail ultra", "six and a half hours"),
            ("the harbour swim", "38 minutes"),
            keys="race time",
        ),
        (
            "Crossed the finish line of {race} this morning, {time}! My legs are jelly.",
            "I did it: {race}, done in {time}. Never again... until next year.",
        ),
        "{P} completed {race} in {time}.",
        ("How long did the endurance event take {P}?", "What was {P}'s result in the competition?"),
        ("take part in the endurance event", "cross the finish line"),
        ("Is {P} the sporty type?", "Does {P} train for athletic events?"),
        (
            (
                "Did an easy recovery jog today, calves still complaining.",
                "{P} did a recovery jog after the race, with sore calves.",
            ),
        ),
        ("What was {P}'s time in the marathon?",),
    ),
    Topic(
        "music",
        _o(
            ("cello", "Mrs. Okonkwo"),
            ("piano", "a retired jazz player named Walt"),
            ("ukulele", "an online course"),
            ("violin", "a conservatory student"),
            ("drums", "Dario at the community centre"),
            ("trumpet", "the town brass band's leader"),
            ("classical guitar", "a teacher from Seville"),
            keys="instrument teacher",
        ),
        (
            "I've started {instrument} lessons, Wednesdays with {teacher}. The neighbours are "
            "suffering.",
            "Finally learning {instrument}! Lessons are with {teacher}.",
        ),
        "{P} takes {instrument} lessons with {teacher}.",
        ("Which instrument is {P} learning to play?", "What does {P} practise for each week?"),
        ("begin the music lessons", "start learning to play"),
        ("Would {P} like sheet music as a present?", "Is {P} musical?"),
        (
            (
                "Practised scales for an hour and my fingers hurt.",
                "{P} practises scales on the {instrument} for an hour at a time.",
            ),
        ),
        ("Which instrument is {P} learning?",),
    ),
    Topic(
        "injury",
        _o(
            ("a broken wrist", "a fall from a bike"),
            ("a torn knee ligament", "a five-a-side football match"),
            ("a slipped disc", "lifting a sofa"),
            ("a sprained ankle", "a pothole on a night run"),
            ("a mild concussion", "a skiing fall"),
            ("a cracked rib", "a slip on the icy steps"),
            keys="condition cause",
        ),
        (
            "Bad news from the clinic: {condition}, courtesy of {cause}. Six weeks of this.",
            "Doctor confirmed it, {condition}. All because of {cause}.",
        ),
        "{P} suffered {condition} from {cause}.",
        ("How did {P} get hurt?", "What was {P}'s injury?"),
        ("get hurt", "see the doctor about the accident"),
        ("Would {P} have to skip sport for a while?", "Was {P} recovering from an accident?"),
        (
            (
                "Physio again today. Slow progress but progress.",
                "{P} is going to physiotherapy and recovering slowly.",
            ),
        ),
        ("How did {P} break a bone?",),
    ),
    Topic(
        "trip",
        _o(
            ("Kyoto", "the moss temples"),
            ("Iceland", "a glacier hike"),
            ("Morocco", "a night in the desert near Merzouga"),
            ("Peru", "the trek to Machu Picchu"),
            ("Norway", "the fjord ferry"),
            ("Sicily", "climbing Etna"),
            ("Vietnam", "a boat night in Ha Long Bay"),
            ("Patagonia", "the wind at Torres del Paine"),
            keys="place highlight",
        ),
        (
            "Just got back from two weeks in {place}. The best part was {highlight}.",
            "Jet-lagged but happy. {place} was amazing, especially {highlight}.",
        ),
        "{P} travelled to {place}; the highlight was {highlight}.",
        ("Where did {P} go on vacation?", "Which destination did {P} visit abroad?"),
        ("return from the holiday", "go away on the long trip"),
        ("Does {P} enjoy seeing other countries?", "Would {P} have holiday photos to show?"),
        (
            (
                "Still sorting through photos from the trip.",
                "{P} is still sorting photos from the {place} trip.",
            ),
        ),
        ("Where did {P} go skiing?",),
    ),
    Topic(
        "car",
        _o(
            ("a 2017 Subaru Outback", "$14,500"),
            ("a used Toyota Prius", "$11,200"),
            ("an electric Kia Niro", "$24,000"),
            ("a 2012 Volvo estate", "$6,800"),
            ("a little Fiat 500", "$7,900"),
            ("a Mazda pickup", "$18,300"),
            keys="car price",
        ),
        (
            "Bought wheels today! {car}, paid {price}.",
            "The old hatchback is gone, I picked up {car} for {price}.",
        ),
        "{P} bought {car} for {price}.",
        ("What does {P} drive these days?", "How much did {P} spend on the vehicle?"),
        ("replace the old hatchback", "buy the vehicle"),
        ("Could {P} give someone a lift to the airport?", "Does {P} own a vehicle?"),
        (
            (
                "Filled the tank and nearly fainted at the price.",
                "{P} finds fuel for the new car expensive.",
            ),
        ),
        ("What motorbike did {P} buy?",),
    ),
    Topic(
        "book",
        _o(
            ("The Overstory", "Richard Powers"),
            ("Piranesi", "Susanna Clarke"),
            ("Project Hail Mary", "Andy Weir"),
            ("Pachinko", "Min Jin Lee"),
            ("A Gentleman in Moscow", "Amor Towles"),
            ("Klara and the Sun", "Kazuo Ishiguro"),
            ("The Remains of the Day", "Kazuo Ishiguro"),
            keys="book author",
        ),
        (
            "I can't put down {book} by {author}. Stayed up till two.",
            "You have to read {book}. {author} is a genius.",
        ),
        "{P} loved the novel {book} by {author}.",
        ("Which story kept {P} up at night?", "What was {P} reading and recommending?"),
        ("rave about the novel", "recommend the story"),
        ("Would {P} like a bookshop voucher?", "Is {P} a fan of fiction?"),
        (
            (
                "Three chapters on the train, nearly missed my stop.",
                "{P} reads novels on the train.",
            ),
        ),
        ("Which poetry collection did {P} recommend?",),
    ),
    Topic(
        "baby",
        _o(
            ("sister", "a baby girl named Ada"),
            ("brother", "twin boys"),
            ("cousin", "a son called Mateo"),
            ("best friend", "a daughter, Iris"),
            ("sister-in-law", "a boy named Felipe"),
            keys="relative news",
        ),
        (
            "My {relative} just had {news}! Over the moon.",
            "Hospital visit this afternoon: my {relative} had {news}.",
        ),
        "{P}'s {relative} had {news}.",
        ("Who is the newborn in {P}'s circle?", "What did {P} learn about the birth?"),
        ("hear about the birth", "meet the newborn"),
        ("Would {P} be shopping for baby clothes?",),
        (("Knitted a tiny hat. It is lopsided.", "{P} knitted a hat for the {relative}'s baby."),),
        ("What did {P}'s wife have?",),
    ),
    Topic(
        "diet",
        _o(
            ("vegetarian", "a documentary about factory farms"),
            ("gluten-free", "a coeliac diagnosis"),
            ("vegan", "cholesterol worries"),
            ("dairy-free", "lactose intolerance"),
            ("pescatarian", "a doctor's advice"),
            keys="diet reason",
        ),
        (
            "Heads up for dinner plans: I've gone {diet}, after {reason}.",
            "New rule in my kitchen, {diet} from now on. Blame {reason}.",
        ),
        "{P} follows a {diet} diet because of {reason}.",
        ("What can't {P} eat any more?", "What changed in {P}'s eating habits?"),
        ("change the way they eat", "give up some foods"),
        ("What should a host keep in mind when cooking for {P}?", "Would {P} order a steak?"),
        (("Made a lentil stew, not bad at all.", "{P} cooked a lentil stew and liked it."),),
        ("Is {P} allergic to peanuts?",),
    ),
    Topic(
        "renovation",
        _o(
            ("kitchen", "oak cabinets and a tiled backsplash"),
            ("bathroom", "a walk-in shower"),
            ("attic", "a home office with skylights"),
            ("garden", "raised vegetable beds"),
            ("basement", "a soundproof music room"),
            ("porch", "a screened-in reading nook"),
            keys="room detail",
        ),
        (
            "The builders finally finished the {room}: {detail}. Worth every penny.",
            "Renovation done, the {room} now has {detail}.",
        ),
        "{P} renovated the {room}, adding {detail}.",
        (
            "Which part of the house did {P} redo?",
            "What did the contractors change at {P}'s place?",
        ),
        ("get the building work finished", "wrap up the renovation"),
        ("Has {P} spent money on the house lately?",),
        (
            (
                "Dust everywhere again, the plasterer came back for touch-ups.",
                "The plasterer came back to touch up {P}'s {room}.",
            ),
        ),
        ("What did {P} do to the garage?",),
    ),
    Topic(
        "study",
        _o(
            ("a part-time MBA", "Hollis Business School"),
            ("an evening course in Italian", "the Dante Institute"),
            ("a master's in public health", "Westbrook University"),
            ("a coding bootcamp", "Forge Academy"),
            ("a pottery course", "the Clayhouse studio"),
            ("a sommelier certificate", "the Vine School"),
            keys="course school",
        ),
        (
            "Got the acceptance email: I'm starting {course} at {school} in the autumn.",
            "Enrolled in {course} at {school}. Back to homework!",
        ),
        "{P} enrolled in {course} at {school}.",
        ("What is {P} studying?", "Which school did {P} sign up with?"),
        ("enrol in the program", "get accepted to study"),
        ("Will {P} have fewer free evenings?", "Is {P} working on new skills?"),
        (
            (
                "Assignment due Friday and I have not started it.",
                "{P} had a course assignment due on a Friday.",
            ),
        ),
        ("What is {P}'s PhD about?",),
    ),
    Topic(
        "engagement",
        _o(
            ("Theo", "on a sunrise hike"),
            ("Amara", "at the restaurant where they met"),
            ("Jonas", "in a snowed-in cabin"),
            ("Lucia", "on a beach in Cadiz"),
            ("Rafi", "at the top of a Ferris wheel"),
            keys="partner detail",
        ),
        (
            "{partner} proposed {detail}! I said yes, obviously.",
            "We're engaged! {partner} asked {detail}.",
        ),
        "{P} got engaged to {partner}, who proposed {detail}.",
        ("Who is {P} going to marry?", "Who is {P}'s fiance?"),
        ("get engaged",),
        ("Is {P} planning a wedding?", "Will {P} need a venue for a big celebration?"),
        (
            (
                "Looked at three venues today, all too expensive.",
                "{P} visited three wedding venues and found them too expensive.",
            ),
        ),
        ("Who is {P} divorcing?",),
    ),
    Topic(
        "garden",
        _o(
            ("tomatoes", "blight"),
            ("roses", "aphids"),
            ("courgettes", "powdery mildew"),
            ("lemon tree", "a late frost"),
            ("strawberries", "slugs"),
            keys="plant pest",
        ),
        (
            "My {plant} are a disaster, {pest} got them. Any tips?",
            "Lost most of the {plant} to {pest} this week. Gutted.",
        ),
        "{P}'s {plant} were ruined by {pest}.",
        ("What went wrong in {P}'s garden?", "Which crop did {P} lose?"),
        ("lose the crop",),
        ("Does {P} look after plants at home?",),
        (("Watered everything at dawn before the heat.", "{P} waters the garden at dawn."),),
        ("What went wrong with {P}'s beehive?",),
    ),
    Topic(
        "volunteer",
        _o(
            ("the food bank", "sorting donations on Sundays"),
            ("an animal shelter", "walking dogs on weekends"),
            ("a literacy charity", "tutoring kids after school"),
            ("the hospice", "reading to patients"),
            ("a river clean-up group", "pulling trash from the creek every month"),
            keys="org task",
        ),
        (
            "I've started helping out at {org}, {task}.",
            "Signed up with {org}. I'll be {task}.",
        ),
        "{P} volunteers with {org}, {task}.",
        ("What unpaid work does {P} do?", "Where does {P} give time for free?"),
        ("begin helping out for free",),
        ("Is {P} involved in the local community?",),
        (
            (
                "Long shift today but the people were lovely.",
                "{P} did a long volunteer shift at {org}.",
            ),
        ),
        ("Which political campaign does {P} volunteer for?",),
    ),
    Topic(
        "concert",
        _o(
            ("Radiohead", "the Forum"),
            ("Billie Eilish", "the stadium"),
            ("a string quartet", "the old chapel"),
            ("Khruangbin", "an outdoor festival"),
            ("the symphony orchestra", "the concert hall"),
            ("Fleetwood Mac tribute band", "a pub in town"),
            keys="artist venue",
        ),
        (
            "Saw {artist} at {venue} last night, goosebumps the whole time.",
            "{artist} live at {venue}! Still buzzing.",
        ),
        "{P} saw {artist} perform at {venue}.",
        ("Which act did {P} see perform?", "What show did {P} go to?"),
        ("go to the gig",),
        ("What kind of music does {P} enjoy?",),
        (("My ears are still ringing a bit.", "{P}'s ears were ringing after the {artist} show."),),
        ("Which opera did {P} see?",),
    ),
    Topic(
        "hobby",
        _o(
            ("bouldering", "a climbing gym downtown"),
            ("chess", "the library's Thursday club"),
            ("salsa dancing", "a studio on Fifth Street"),
            ("rowing", "the river club"),
            ("fencing", "the university sports hall"),
            ("birdwatching", "the wetlands reserve"),
            keys="hobby place",
        ),
        (
            "New obsession: {hobby}. I go to {place} twice a week.",
            "Tried {hobby} at {place} and I'm hooked.",
        ),
        "{P} took up {hobby} at {place}.",
        ("What pastime has {P} picked up?", "How does {P} spend evenings lately?"),
        ("take up the new pastime",),
        ("Does {P} have a regular weekly activity?",),
        (("Sore forearms today, worth it.", "{P} gets sore forearms from {hobby}."),),
        ("Which golf club did {P} join?",),
    ),
    Topic(
        "promotion",
        _o(
            ("team lead", "a 12% raise"),
            ("senior analyst", "a corner desk and a bigger budget"),
            ("head of operations", "three direct reports"),
            ("principal designer", "a company car"),
            ("deputy head", "a seat on the board"),
            keys="title perk",
        ),
        (
            "They made me {title}! Comes with {perk}.",
            "Promotion came through: {title}, with {perk}.",
        ),
        "{P} was promoted to {title}, with {perk}.",
        ("What is {P}'s new title at work?", "What did {P} get from the boss this year?"),
        ("move up at work", "get the promotion"),
        ("Is {P} doing well in the career?", "Does {P} manage other people?"),
        (
            (
                "Long meeting with the new team, lots of names to learn.",
                "{P} met the new team after the promotion.",
            ),
        ),
        ("Why was {P} fired?",),
    ),
    Topic(
        "lost",
        _o(
            ("wedding ring", "the gym locker room"),
            ("passport", "a taxi in Madrid"),
            ("laptop", "the train to Leeds"),
            ("house keys", "the park"),
            ("grandmother's watch", "a hotel in Prague"),
            keys="item place",
        ),
        (
            "Worst day: I lost my {item}, probably at {place}.",
            "Panic. My {item} is gone, last seen at {place}.",
        ),
        "{P} lost a {item} at {place}.",
        ("What did {P} misplace?", "Where did {P}'s missing belonging disappear?"),
        ("lose the valuable thing",),
        ("Does {P} need to replace something valuable?",),
        (("Retraced my steps again, nothing.", "{P} has not found the lost {item}."),),
        ("What did {P}'s phone get stolen from?",),
    ),
    Topic(
        "language",
        _o(
            ("Japanese", "a trip planned for next spring"),
            ("Portuguese", "a partner's family in Brazil"),
            ("German", "a possible transfer to Munich"),
            ("Korean", "all the dramas"),
            ("Arabic", "reading old family letters"),
            ("Dutch", "a new job in Rotterdam"),
            keys="language reason",
        ),
        (
            "Day 40 of my {language} streak! Doing it for {reason}.",
            "I'm learning {language}, mostly for {reason}.",
        ),
        "{P} is learning {language} because of {reason}.",
        ("Which foreign tongue is {P} working on?", "Why is {P} practising vocabulary every day?"),
        ("begin the language lessons",),
        ("Could {P} order food abroad without help?", "Is {P} bilingual?"),
        (("Verb conjugations are killing me.", "{P} finds {language} verb conjugations hard."),),
        ("Which sign language is {P} learning?",),
    ),
    Topic(
        "parent",
        _o(
            ("mum", "a hip replacement"),
            ("dad", "a pacemaker fitted"),
            ("mother", "cataract surgery"),
            ("father", "a knee operation"),
            ("grandpa", "a bypass operation"),
            keys="parent procedure",
        ),
        (
            "My {parent} had {procedure} on Tuesday. It went well, thank god.",
            "Sitting in the hospital cafe, my {parent} is in for {procedure}.",
        ),
        "{P}'s {parent} had {procedure}.",
        (
            "What medical treatment did {P}'s family member have?",
            "Which relative of {P} was in hospital?",
        ),
        ("sit in the hospital waiting room",),
        ("Is {P} caring for an elderly relative?",),
        (
            (
                "Drove over with groceries again.",
                "{P} brings groceries to the {parent} after the operation.",
            ),
        ),
        ("What surgery did {P}'s uncle have?",),
    ),
    Topic(
        "side",
        _o(
            ("hand-poured candles", "Etsy"),
            ("vintage jackets", "Depop"),
            ("sourdough loaves", "the Saturday market"),
            ("ceramic mugs", "a pop-up shop"),
            ("custom bike frames", "a small website"),
            keys="product outlet",
        ),
        (
            "My little side hustle is live: selling {product} on {outlet}!",
            "Sold my first {product} on {outlet} today.",
        ),
        "{P} started selling {product} on {outlet}.",
        ("What does {P} make money on outside the day job?", "What is {P} selling?"),
        ("open the little shop",),
        ("Is {P} entrepreneurial?",),
        (
            (
                "Shipping labels everywhere on the kitchen table.",
                "{P} packs the shop's orders at the kitchen table.",
            ),
        ),
        ("Which app does {P} drive for?",),
    ),
)
