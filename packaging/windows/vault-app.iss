; vault-app's Windows installer (Inno Setup 6): vault-app-setup-<version>.exe, made from the
; PyInstaller onedir bundle. The installers workflow (.github/workflows/installers.yml) runs
;
;   iscc /DAppVersion=<vault_app.__version__> packaging\windows\vault-app.iss
;
; from the checkout's root, after `python packaging/build.py` has made dist\vault-app\ and
; `python packaging/icons.py ico build\icons\vault-app.ico` the icon. The version has one
; source, vault_app/__init__.py: this script has none of its own and refuses to build
; without it. Not tested on this project's machine (Linux): built only by the workflow.
;
; What it installs: the bundle under Program Files (or, when the person picks "only for
; me" or runs it without admin rights, under %LOCALAPPDATA%\Programs), a Start-menu
; shortcut to the window (vault-appw.exe, no console), optionally one on the desktop and
; the install folder on PATH (for the CLI, vault-app.exe); an uninstall entry in
; Settings > Apps, which removes all of that. The user's vaults, settings and caches are
; never touched by the uninstaller.

#ifndef AppVersion
  #error Pass the version: iscc /DAppVersion=X.Y.Z (vault_app.__version__)
#endif
#ifndef BundleDir
  #define BundleDir "..\..\dist\vault-app"
#endif
#ifndef IconFile
  #define IconFile "..\..\build\icons\vault-app.ico"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif

#define AppName "vault-app"
#define CliExe "vault-app.exe"
#define GuiExe "vault-appw.exe"

[Setup]
; The id ties every version's install and uninstall together: never change it.
AppId={{5F29BABA-EA81-462E-97F8-2FD20A1A43DD}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#AppName}
AppComments=See, search and curate the PARA memory vaults of AI agents
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per-user by default (no admin rights needed); the first page offers "for all users".
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#OutputDir}
OutputBaseFilename=vault-app-setup-{#AppVersion}
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\{#GuiExe}
UninstallDisplayName={#AppName} {#AppVersion}
ChangesEnvironment=yes
CloseApplications=yes
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add the vault-app command (the CLI) to PATH"; GroupDescription: "Command line:"; Flags: unchecked

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#GuiExe}"; Comment: "vault-app: the PARA memory vaults of AI agents"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#GuiExe}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#GuiExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
{ PATH holds the install folder when the "addtopath" task is picked: the user's PATH for
  a per-user install, the machine's for an all-users one; the uninstaller takes it out. }

function PathRoot: Integer;
begin
  if IsAdminInstallMode then
    Result := HKEY_LOCAL_MACHINE
  else
    Result := HKEY_CURRENT_USER;
end;

function PathKey: String;
begin
  if IsAdminInstallMode then
    Result := 'SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
  else
    Result := 'Environment';
end;

function PathWithout(Paths, Dir: String): String;
var
  Rest, Item: String;
  Cut: Integer;
begin
  Result := '';
  Rest := Paths;
  while Rest <> '' do
  begin
    Cut := Pos(';', Rest);
    if Cut = 0 then
    begin
      Item := Rest;
      Rest := '';
    end
    else
    begin
      Item := Copy(Rest, 1, Cut - 1);
      Rest := Copy(Rest, Cut + 1, Length(Rest));
    end;
    if (Item <> '') and (CompareText(RemoveBackslashUnlessRoot(Item), RemoveBackslashUnlessRoot(Dir)) <> 0) then
    begin
      if Result <> '' then
        Result := Result + ';';
      Result := Result + Item;
    end;
  end;
end;

procedure AddToPath(Dir: String);
var
  Paths: String;
begin
  if not RegQueryStringValue(PathRoot, PathKey, 'Path', Paths) then
    Paths := '';
  Paths := PathWithout(Paths, Dir);
  if Paths <> '' then
    Paths := Paths + ';';
  RegWriteExpandStringValue(PathRoot, PathKey, 'Path', Paths + Dir);
end;

procedure RemoveFromPath(Dir: String);
var
  Paths: String;
begin
  if RegQueryStringValue(PathRoot, PathKey, 'Path', Paths) then
    RegWriteExpandStringValue(PathRoot, PathKey, 'Path', PathWithout(Paths, Dir));
end;

procedure CurStepChanged(CurStep: TSetupStep);
begin
  if (CurStep = ssPostInstall) and WizardIsTaskSelected('addtopath') then
    AddToPath(ExpandConstant('{app}'));
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usUninstall then
    RemoveFromPath(ExpandConstant('{app}'));
end;
