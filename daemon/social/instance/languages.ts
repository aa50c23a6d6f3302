/** ISO 639-1 languages posts may be tagged with (the list /api/v1/instance/languages serves). */
export const LANGUAGES: ReadonlyArray<[string, string]> = [
  ['ar', 'Arabic'], ['bg', 'Bulgarian'], ['ca', 'Catalan'], ['cs', 'Czech'], ['cy', 'Welsh'], ['da', 'Danish'], ['de', 'German'],
  ['el', 'Greek'], ['en', 'English'], ['eo', 'Esperanto'], ['es', 'Spanish'], ['et', 'Estonian'], ['eu', 'Basque'], ['fa', 'Persian'],
  ['fi', 'Finnish'], ['fr', 'French'], ['ga', 'Irish'], ['gl', 'Galician'], ['he', 'Hebrew'], ['hi', 'Hindi'], ['hr', 'Croatian'],
  ['hu', 'Hungarian'], ['id', 'Indonesian'], ['is', 'Icelandic'], ['it', 'Italian'], ['ja', 'Japanese'], ['ko', 'Korean'],
  ['lt', 'Lithuanian'], ['lv', 'Latvian'], ['nl', 'Dutch'], ['no', 'Norwegian'], ['pl', 'Polish'], ['pt', 'Portuguese'],
  ['ro', 'Romanian'], ['ru', 'Russian'], ['sk', 'Slovak'], ['sl', 'Slovenian'], ['sr', 'Serbian'], ['sv', 'Swedish'], ['th', 'Thai'],
  ['tr', 'Turkish'], ['uk', 'Ukrainian'], ['vi', 'Vietnamese'], ['zh', 'Chinese'],
];
